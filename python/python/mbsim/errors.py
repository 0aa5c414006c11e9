"""The exceptions of mbsim, shared by the catalog module and every user model module.

``MbsimError`` is the base of all of them:

- ``InputError`` (also a ``ValueError``): a bad argument — an unknown parameter, coordinate
  or option, a vector of the wrong length, NaN or inf where a number is needed, an option the
  chosen method does not take. The message names the offending entry and lists the valid ones.
- ``UnknownModelError`` (also a ``KeyError``): no model of that name; ``name`` holds it.
- ``SimulationError`` (also a ``RuntimeError``): the integration, the consistent
  initialization or an analysis failed. It carries the runtime's diagnosis (Rust's
  ``SimError``): ``kind`` (the variant, e.g. ``"SingularConfiguration"``), ``t`` and ``h`` (or
  ``None`` when the failure has none), ``rows`` (the constraint rows at fault, by name),
  ``coordinates`` (the coordinates a motion without inertia moves, by name, when M is singular
  on the constraints' null space), ``at`` (for a non-finite kernel value: its entry by name,
  e.g. ``"(`x1`, `phi2`)"``), ``cause`` (for a step-size underflow: what its rejected
  attempts at t say, ``"unresolved"`` (the error estimate fell with h like a truncation
  error), ``"stagnant"`` (it did not: noise), ``"crawl"`` (accepted steps too short to
  finish: at the pace of its last 10⁵ attempts it would need more than 10⁴ × ``max_steps``) or ``"unknown"`` (fewer than two
  rejected attempts at different step sizes); ``None`` for every other kind) and ``detail``
  (the variant's other numbers: condition, iterations, residual, ...; an underflow that is
  unresolved or stagnant has its first and last rejected attempt there, ``first_h``,
  ``first_error``, ``last_h``, ``last_error``; a crawl its window's ``attempts`` and how far
  t ``advanced``).
- ``ModelFileError``: a model file or string that does not build; the message is located
  (``file:line:col: what is wrong``), as the Rust compiler or ``mbsim generate`` shows it.
- ``DistributedError``: a distributed sweep (``backend="ray"`` or ``"dask"``) could not
  give every run exactly once: a task failed beyond its retries, or a run came back twice or
  not at all; the message names the task and its runs.
- ``ToolchainError``: building a user model needs ``cargo`` (the Rust toolchain), which
  was not found.
"""


class MbsimError(Exception):
    """Base of every mbsim error."""


class InputError(MbsimError, ValueError):
    """A bad argument (unknown name, wrong length, NaN, an option the method lacks)."""


class UnknownModelError(MbsimError, KeyError):
    """No model of that name."""

    name: str = ""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class SimulationError(MbsimError, RuntimeError):
    """A failed run, with the runtime's diagnosis."""

    kind: str = ""
    t: float | None = None
    h: float | None = None
    rows: list[str] = []
    coordinates: list[str] = []
    at: str | None = None
    cause: str | None = None
    detail: dict[str, float] = {}


class ModelFileError(MbsimError):
    """A model file or string that does not build (the message says where)."""


class ToolchainError(MbsimError):
    """No Rust toolchain (cargo) to build a user model."""


class DistributedError(MbsimError, RuntimeError):
    """A distributed sweep that could not give every run exactly once."""
