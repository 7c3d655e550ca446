"""Payload text for the benchmarks' items: made-up words with English-like letter frequencies,
which compresses about as real prose or JSON does (2–3× with zlib), unlike a repeated pattern
that block compression would shrink to nothing."""
import random


def vocabulary(size=1000, seed=7):
    rng = random.Random(seed)
    return ["".join(rng.choice("etaoinshrdlcumwfgypbvkjxqz") for _ in range(rng.randint(2, 9)))
            for _ in range(size)]


WORDS = vocabulary()


def text(seed, length):
    """`length` characters of words drawn reproducibly (by `seed`) from WORDS."""
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(length // 3))[:length]
