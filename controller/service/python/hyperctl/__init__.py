"""hyperctl: tune a trainer's hyperparameters through ``hyperctl serve``.

Standard library only (Python >= 3.9). Start a server, then::

    from hyperctl import Controller

    ctl = Controller("http://127.0.0.1:8421",
                     space=[{"name": "lr", "low": 1e-5, "high": 1e-3, "scale": "log"},
                            {"name": "clip", "low": 0.1, "high": 0.5}],
                     method="hypercontroller", interval=5, seed=0)
    for it in range(iterations):
        cfg = ctl.suggest()                  # {"lr": ..., "clip": ...}
        ctl.observe(train_one_iteration(cfg))

See :class:`Controller` and :mod:`hyperctl.client`.
"""

from .client import (AlreadyExists, Client, Controller, FailedPrecondition, HyperctlError,
                     Internal, InvalidArgument, NotFound, ResourceExhausted, Unauthenticated,
                     Unavailable, health, list_sessions)

__all__ = [
    "Controller", "Client", "HyperctlError", "InvalidArgument", "NotFound",
    "FailedPrecondition", "AlreadyExists", "ResourceExhausted", "Unauthenticated",
    "Unavailable", "Internal", "health", "list_sessions",
]
