/* One instruction-set variant of the kernels, included once per variant by module.c with
 *   K(name)  the variant's name for `name` (name_avx2, ...),
 *   KATTR    the functions' target attribute (empty for the portable variant),
 *   KISA     0 portable C, 1 AVX2, 2 AVX-512 (F, BW, VL, DQ).
 * Everything it defines is static; the variant's entries are collected in K(kernel).
 */

#include "kernel_vote.h"
#include "kernel_ditto.h"
#include "kernel_html.h"
#include "kernel_join.h"

static const Kernel K(kernel) = {
    K(name_string), K(normalize), K(spans), K(html), K(vote_counts), K(join_table),
    K(argsort),
};
