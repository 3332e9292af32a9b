#!/usr/bin/env python3
"""Writes succ.bin: the successor array of a random linked list of N elements
with head 0 (little-endian i32, -1 marks the last element). Deterministic:
Python's random.Random(2009). Run from this directory: python3 gen_succ.py"""
import random
import struct

N = 4096
rng = random.Random(2009)
order = list(range(1, N))
rng.shuffle(order)
order = [0] + order
succ = [-1] * N
for a, b in zip(order, order[1:]):
    succ[a] = b
with open("succ.bin", "wb") as f:
    f.write(struct.pack("<%di" % N, *succ))
