"""Loads a graph through kiln.Cache and prints the kiln.Error it raises."""
import sys

import kiln

try:
    kiln.Cache(sys.argv[1]).load(sys.argv[2])
    print("loaded")
except kiln.Error as error:
    print("ERROR:", error)
