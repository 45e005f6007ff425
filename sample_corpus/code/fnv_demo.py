"""Tiny FNV-1a demo: hash every 4-character window of a string."""

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK = (1 << 64) - 1


def fnv1a64(data: bytes) -> int:
    h = FNV_OFFSET
    for byte in data:
        h ^= byte
        h = (h * FNV_PRIME) & MASK
    return h


def windows(text: str, size: int = 4):
    for start in range(max(1, len(text) - size + 1)):
        yield text[start:start + size]


if __name__ == "__main__":
    import sys

    sample = " ".join(sys.argv[1:]) or "near duplicates"
    for w in windows(sample.lower()):
        print(f"{w!r:>8}  {fnv1a64(w.encode('utf-8')):016x}")
