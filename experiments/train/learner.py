"""The learner of ``knorri-sim train``: the Q-network in JAX, regressed on Monte-Carlo returns with optax's Adam.

This module imports the training library (the ``train`` extra); nothing that plays imports it. Its network is
the one ``agents.learned.network`` plays (the same layers, the same fixed input scale), so the weights it hands
back as a ``QNetwork`` play through every route without JAX.

``configure_threads`` must run before JAX is first imported: with one thread the learner's arithmetic runs in a
fixed order, which is what makes a training's first checkpoint the same bit for bit from the same seed.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agents.learned.network import LAYERS, QNetwork


def configure_threads(threads: int) -> None:
    """Ask XLA (JAX's compiler) for ``threads`` CPU threads and the CPU alone; call before JAX is imported."""
    flags = os.environ.get("XLA_FLAGS", "")
    if threads == 1 and "intra_op_parallelism_threads" not in flags:
        flags += " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    os.environ["XLA_FLAGS"] = flags.strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")


def library_versions() -> dict[str, str]:
    """The training library's versions, for the model card."""
    import jax
    import optax

    return {"jax": jax.__version__, "jaxlib": getattr(jax.lib, "__version__", jax.__version__),
            "optax": optax.__version__, "numpy": np.__version__}


AVERAGE_RATE = 0.01
"""How far the weights' running average moves towards the weights at each step (about the last hundred steps)."""


class Learner:
    """The Q-network's parameters and Adam's state, stepped on minibatches of (observation, action, return), with a
    running average of the weights: a step's weights carry its minibatch's noise, the average much less, so it is
    the average that is evaluated and shipped (self-play uses the weights as they are)."""

    def __init__(self, network: QNetwork, learning_rate: float, clip: float = 10.0) -> None:
        import jax
        import jax.numpy as jnp
        import optax

        self.meta = dict(network.meta)
        self.scale = np.asarray(network.scale, dtype=np.float32)
        self.params = {name: jnp.asarray(getattr(network, name)) for name in LAYERS}
        self.optimizer = optax.chain(optax.clip_by_global_norm(clip), optax.adam(learning_rate))
        self.opt_state = self.optimizer.init(self.params)
        self._jax, self._optax = jax, optax

        def loss(params: dict[str, Any], x: Any, actions: Any, returns: Any) -> Any:
            q = q_all(params, x)
            taken = jnp.take_along_axis(q, actions[:, None], axis=1)[:, 0]
            return jnp.mean((taken - returns) ** 2)

        def step(params: dict[str, Any], opt_state: Any, x: Any, actions: Any, returns: Any) -> tuple[Any, ...]:
            value, grads = jax.value_and_grad(loss)(params, x, actions, returns)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, value

        def follow(average: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
            return {name: average[name] + AVERAGE_RATE * (params[name] - average[name]) for name in average}

        def imitation_loss(params: dict[str, Any], x: Any, masks: Any, actions: Any) -> Any:
            logits = jnp.where(masks, q_all(params, x), -1e9)
            chosen = jnp.take_along_axis(jax.nn.log_softmax(logits), actions[:, None], axis=1)[:, 0]
            return -jnp.mean(chosen)

        def imitation_step(params: dict[str, Any], opt_state: Any, x: Any, masks: Any,
                           actions: Any) -> tuple[Any, ...]:
            value, grads = jax.value_and_grad(imitation_loss)(params, x, masks, actions)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, value

        self._step = jax.jit(step)
        self._imitation_step = jax.jit(imitation_step)
        self._follow = jax.jit(follow)
        self._q = jax.jit(q_all)
        self.average = dict(self.params)

    def train(self, observations: np.ndarray, actions: np.ndarray, returns: np.ndarray) -> float:
        """One Adam step on a minibatch (observations as the batch gives them, unscaled); the loss before it."""
        x = np.asarray(observations, dtype=np.float32) * self.scale
        self.params, self.opt_state, value = self._step(self.params, self.opt_state, x,
                                                        np.asarray(actions, dtype=np.int32),
                                                        np.asarray(returns, dtype=np.float32))
        self.average = self._follow(self.average, self.params)
        return float(value)

    def imitate(self, observations: np.ndarray, masks: np.ndarray, actions: np.ndarray) -> float:
        """One Adam step towards a teacher's choices: cross-entropy of the softmax of Q over each row's legal
        actions against the action the teacher took (the agent plays the legal action of highest Q, so the
        values become a policy); the loss before the step."""
        x = np.asarray(observations, dtype=np.float32) * self.scale
        self.params, self.opt_state, value = self._imitation_step(self.params, self.opt_state, x,
                                                                  np.asarray(masks, dtype=bool),
                                                                  np.asarray(actions, dtype=np.int32))
        self.average = self._follow(self.average, self.params)
        return float(value)

    def q_values(self, observations: np.ndarray) -> np.ndarray:
        """Q of every action id in each observation row, by JAX (the numba pass must agree)."""
        return np.asarray(self._q(self.params, np.asarray(observations, dtype=np.float32) * self.scale))

    def network(self, averaged: bool = False) -> QNetwork:
        """The current weights (or their running average, ``averaged``) as the NumPy network ``learned`` plays."""
        params = self.average if averaged else self.params
        return QNetwork(scale=self.scale.copy(), meta=dict(self.meta),
                        **{name: np.asarray(params[name], dtype=np.float32).copy() for name in LAYERS})

    def state_arrays(self) -> dict[str, np.ndarray]:
        """Adam's state (``opt_0``, ``opt_1``, ...) and the weights' running average (``average_w1``, ...) as named
        arrays, for a checkpoint."""
        leaves = self._jax.tree_util.tree_leaves(self.opt_state)
        return {**{f"opt_{i}": np.asarray(leaf) for i, leaf in enumerate(leaves)},
                **{f"average_{name}": np.asarray(value) for name, value in self.average.items()}}

    def load_state(self, arrays: dict[str, np.ndarray]) -> None:
        """Adam's state and the running average back from ``state_arrays`` (a checkpoint written before the average
        was kept starts it at the weights)."""
        self.average = {name: self._jax.numpy.asarray(arrays.get(f"average_{name}", self.params[name]))
                        for name in LAYERS}
        leaves, structure = self._jax.tree_util.tree_flatten(self.opt_state)
        if len([key for key in arrays if key.startswith("opt_")]) != len(leaves):
            raise ValueError("the checkpoint's optimizer state does not fit this learner")
        restored = [self._jax.numpy.asarray(arrays[f"opt_{i}"], dtype=leaf.dtype) for i, leaf in enumerate(leaves)]
        self.opt_state = self._jax.tree_util.tree_unflatten(structure, restored)


def q_all(params: dict[str, Any], x: Any) -> Any:
    """The network's Q values of every action id for scaled inputs ``x`` (JAX arrays)."""
    import jax

    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    h = jax.nn.relu(h @ params["w2"] + params["b2"])
    return h @ params["w3"] + params["b3"]
