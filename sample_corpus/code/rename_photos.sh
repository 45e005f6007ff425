#!/bin/sh
# Rename camera files IMG_1234.JPG to 2025-04-14_1234.jpg using the file date.
set -eu
for f in IMG_*.JPG; do
  [ -e "$f" ] || continue
  day=$(date -r "$f" +%Y-%m-%d)
  num=${f#IMG_}; num=${num%.JPG}
  mv -n -- "$f" "${day}_${num}.jpg"
done
