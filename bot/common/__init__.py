"""Leaves every room of bot/ may use: the injectable clock, fault points for the kill tests,
and the shard arithmetic.

May import: the standard library only (no other room of bot/, no discord.py).
"""
