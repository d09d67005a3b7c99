"""The experiment runner behind ``knorri-sim run``: config, seeding, chunks, parquet shards, manifest, summary.

It schedules and writes; it never knows a game's rules. The game's adapter
(``sim.knorri.adapter``) plays a chunk of matches and returns column arrays.
"""
