"""Ten: a deliberately tiny trick game, in a package of its own, that proves the game contract (``sim.contract``)
from outside the harness.

Its ``pyproject.toml`` declares the game and its bot as entry points, as any plug-in would; installing this
package (the README's test command does) is all it takes for every command to play it, through its adapter
(``tiny_game.adapter``) alone.
"""

NAME = "ten"
