"""The write road: Table -> shredding (levels) -> encoding -> pages -> column
chunk (with page index and bloom filter) -> row group -> footer.

File surgery (concat, append, footer edits, recovery) is in ``surgery``.
"""
