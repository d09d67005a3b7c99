"""``knorri-sim duel``: two agents on duplicate deals until a sequential test decides which is better."""
