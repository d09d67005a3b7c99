"""See a hand: a deal of any game step by step, as a self-contained HTML page or in a notebook."""
