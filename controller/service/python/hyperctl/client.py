"""A standard-library client for ``hyperctl serve``.

It speaks Connect's JSON protocol over HTTP/1.1 (a POST per call, JSON in and
out), so it needs nothing outside Python's standard library (Python >= 3.9).

Example::

    from hyperctl import Controller

    ctl = Controller(
        "http://127.0.0.1:8421",
        space=[{"name": "lr", "low": 1e-5, "high": 1e-3, "scale": "log"},
               {"name": "clip", "low": 0.1, "high": 0.5}],
        method="hypercontroller", settings={"d": 10}, interval=5, seed=0)
    for it in range(100):
        cfg = ctl.suggest()                 # {"lr": 0.0001, "clip": 0.3}
        reward = train_one_iteration(cfg)   # your trainer
        ctl.observe(reward)                 # also brings the next cfg

One request per iteration: the server's reply to an observation carries the
suggestion for the next iteration, computed after the observation is on
disk, and ``suggest()`` returns it without a request. It is exactly what a
separate Suggest would return (a session's suggestion is a deterministic
function of its state, also across a server restart); ``suggest()`` sends
the request itself for the first iteration, after :meth:`Controller.resume`
or :meth:`Controller.refresh`, and whenever the cached one is not for the
expected iteration.

    # Later, in another process, after a crash of either side:
    ctl = Controller.resume("http://127.0.0.1:8421", ctl.session_id)

Every call is retried with exponential backoff on connection errors and on
UNAVAILABLE answers. That is safe: a session created with a client-chosen id
(this client always picks one) is created once, Suggest is idempotent, and
Observe carries the iteration number, so the server acknowledges a retried
observation without applying it twice.
"""

import json
import math
import random
import socket
import time
import urllib.error
import urllib.request
import uuid
from http.client import HTTPException

__all__ = [
    "Controller", "Client", "HyperctlError", "InvalidArgument", "NotFound",
    "FailedPrecondition", "AlreadyExists", "ResourceExhausted",
    "Unauthenticated", "Unavailable", "Internal",
]

SERVICE = "hyperctl.v1.ControllerService"


class HyperctlError(Exception):
    """An error answered by the server (or a transport failure).

    ``code`` is the Connect error code (e.g. ``"invalid_argument"``) and
    ``message`` the server's message, which names the offending field.
    """

    code = "unknown"

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self):
        return "%s: %s" % (self.code, self.message)


class InvalidArgument(HyperctlError):
    """A malformed or invalid request; the message names the field."""
    code = "invalid_argument"


class NotFound(HyperctlError):
    """No such session."""
    code = "not_found"


class FailedPrecondition(HyperctlError):
    """The request contradicts the session (e.g. an iteration gap)."""
    code = "failed_precondition"


class AlreadyExists(HyperctlError):
    """A session with this id exists with a different definition."""
    code = "already_exists"


class ResourceExhausted(HyperctlError):
    """The session cap is reached, or the request body is too large."""
    code = "resource_exhausted"


class Unauthenticated(HyperctlError):
    """Missing or wrong token."""
    code = "unauthenticated"


class Unavailable(HyperctlError):
    """The server could not be reached or could not record the request
    (retried already; safe to retry again)."""
    code = "unavailable"


class Internal(HyperctlError):
    """The server failed (it logged the details)."""
    code = "internal"


_ERRORS = {c.code: c for c in (InvalidArgument, NotFound, FailedPrecondition,
                               AlreadyExists, ResourceExhausted, Unauthenticated,
                               Unavailable, Internal)}

# Connect's mapping of HTTP status to code, for answers without a JSON body.
_HTTP_CODES = {400: "invalid_argument", 401: "unauthenticated", 403: "permission_denied",
               404: "unimplemented", 408: "deadline_exceeded", 409: "already_exists",
               412: "failed_precondition", 413: "resource_exhausted", 429: "unavailable",
               431: "resource_exhausted", 500: "internal", 502: "unavailable",
               503: "unavailable", 504: "unavailable"}

_RETRY_CODES = {"unavailable"}


def _number(x):
    """A float for JSON: protobuf's JSON spells non-finite doubles as
    strings, so the server, not the encoder, rejects them with its message."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


class Client:
    """Low-level client: one method per RPC of hyperctl.v1.ControllerService.

    ``call("Suggest", {"sessionId": "..."})`` returns the decoded JSON reply
    or raises a :class:`HyperctlError`. ``retries`` and ``backoff`` bound the
    retries of transient failures: attempts wait backoff, 2*backoff, ... up
    to ``max_backoff`` seconds, with jitter.
    """

    def __init__(self, url, token=None, timeout=30.0, retries=8, backoff=0.1, max_backoff=5.0):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.attempts = 0  # HTTP attempts made, retries included (for tests and logs)

    def call(self, method, body, idempotent_not_found=False):
        """Call one RPC. With idempotent_not_found, a NOT_FOUND answer to a
        retry (after an attempt whose answer was lost) counts as success:
        DeleteSession uses it."""
        data = json.dumps(body, allow_nan=False).encode()
        headers = {"Content-Type": "application/json", "Connect-Protocol-Version": "1"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        delay = self.backoff
        for attempt in range(self.retries + 1):
            self.attempts += 1
            try:
                return self._post(method, data, headers)
            except HyperctlError as e:
                if idempotent_not_found and attempt > 0 and e.code == "not_found":
                    return {}
                if e.code not in _RETRY_CODES or attempt == self.retries:
                    raise
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, self.max_backoff)
        raise AssertionError("unreachable")

    def _post(self, method, data, headers):
        req = urllib.request.Request("%s/%s/%s" % (self.url, SERVICE, method), data=data,
                                     headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                err = json.loads(raw)
                code, msg = err.get("code", "unknown"), err.get("message", "")
            except ValueError:
                code = _HTTP_CODES.get(e.code, "unknown")
                msg = "HTTP %d: %s" % (e.code, raw[:200].decode("utf-8", "replace"))
            raise _ERRORS.get(code, HyperctlError)(msg, code)
        except (urllib.error.URLError, ConnectionError, socket.timeout, HTTPException, OSError) as e:
            reason = getattr(e, "reason", e)
            raise Unavailable("%s unreachable: %s" % (self.url, reason))


class Controller:
    """One controller session on a ``hyperctl serve`` server.

    Create a session::

        ctl = Controller(url, space=[{"name": "lr", "low": 1e-5, "high": 1e-3, "scale": "log"}],
                         method="gpucb", settings={"window": 50}, interval=5, seed=1)

    ``space`` lists the tuned hyperparameters: ``name``, ``low``, ``high``,
    and optionally ``scale`` (``"linear"`` or ``"log"``) and ``integer``.
    ``method`` is any controller ``hyperctl controllers`` lists;
    ``settings`` is its settings table (``[controller.<method>]`` of a config
    file); ``interval`` the decision interval (``"auto"`` for bilevel);
    ``objective`` ``"delta"`` (default), ``"reward"`` or
    ``"delta_per_second"``; ``iterations`` the planned run length for methods
    that size themselves by it. The server validates all of it as
    ``hyperctl train`` validates a config and raises :class:`InvalidArgument`
    naming the field.

    ``start`` is the configuration in force during the first decision
    period, a dict ``{name: value}`` covering every parameter: the
    trainer's own values, so that control starts from them (the method
    observes that period like any other). Without it the method's first
    suggestion is used.

    ``session_id`` names the session (one is generated otherwise); creating
    again with the same id and definition reattaches to it. To reattach by id
    alone use :meth:`resume`.
    """

    def __init__(self, url, space=None, method="hypercontroller", settings=None, interval=None,
                 seed=0, objective=None, iterations=None, session_id=None, token=None, client=None,
                 start=None):
        self._client = client or Client(url, token=token)
        if space is None:
            if not session_id:
                raise ValueError("give a space to create a session, or a session_id to resume one")
            info = self._client.call("GetSession", {"sessionId": session_id})["session"]
        else:
            body = {"sessionId": session_id or uuid.uuid4().hex, "space": [dict(p) for p in space],
                    "method": method or "", "seed": int(seed)}
            if settings:
                body["settings"] = dict(settings)
            if interval == "auto":
                body["intervalAuto"] = True
            elif interval is not None:
                body["interval"] = int(interval)
            if objective:
                body["objective"] = objective
            if iterations:
                body["iterations"] = int(iterations)
            if start:
                missing = [p["name"] for p in space if p["name"] not in start]
                if missing:
                    raise ValueError("start: no value for %s" % ", ".join(missing))
                body["start"] = [_number(start[p["name"]]) for p in space]
            info = self._client.call("CreateSession", body)["session"]
        self._set_info(info)

    @classmethod
    def resume(cls, url, session_id, token=None, client=None):
        """Reattach to an existing session; suggest() continues where it
        stands."""
        return cls(url, session_id=session_id, token=token, client=client)

    def _set_info(self, info):
        self.info = info
        self.session_id = info["id"]
        self.names = list(info["names"])
        spec = info.get("spec") or {}
        self._integer = {p["name"]: bool(p.get("integer")) for p in spec.get("space", [])}
        self.iteration = int(info.get("iteration", 0))
        self._pending = None
        self._next = None  # the last observe's next suggestion

    @property
    def method(self):
        """The registered controller name."""
        return self.info["method"]

    @property
    def settings(self):
        """The method's settings, the server's defaults filled in."""
        return dict(self.info.get("settings") or {})

    @property
    def interval(self):
        """The decision interval in iterations."""
        return int(self.info["interval"])

    def suggest(self):
        """Return the configuration for the next iteration as a dict
        ``{name: value}`` (integer parameters as int). Calling it again
        before :meth:`observe` returns the same configuration.

        After an :meth:`observe` it returns the suggestion that came with the
        server's reply, without a request, when that suggestion is for the
        expected iteration; otherwise (first iteration, after a resume or
        refresh, a reply without one) it asks the server. Both give the same
        configuration."""
        resp = self._next
        if resp is None or int(resp.get("iteration", 0)) != self.iteration:
            resp = self._client.call("Suggest", {"sessionId": self.session_id, "iteration": self.iteration})
            self._next = resp
        it = int(resp.get("iteration", 0))
        values = resp["values"]
        cfg = {}
        for name, v in zip(self.names, values):
            cfg[name] = int(round(v)) if self._integer.get(name) else float(v)
        self._pending = (it, cfg)
        self.last_decision = bool(resp.get("decision"))
        return dict(cfg)

    def observe(self, reward, frames=None, elapsed=None, returns=None):
        """Report the iteration's outcome: ``reward`` is its mean training
        reward (finite), ``frames`` the environment frames it collected,
        ``elapsed`` its wall time in seconds, ``returns`` the episode returns
        that finished in it. Returns True when the server had already
        applied this iteration (a retry), False otherwise.

        The reply also carries the next iteration's suggestion, which the
        next :meth:`suggest` returns without a request."""
        body = {"sessionId": self.session_id, "iteration": self.iteration, "reward": _number(reward)}
        if frames is not None:
            body["frames"] = int(frames)
        if elapsed is not None:
            body["elapsedSeconds"] = _number(elapsed)
        if returns:
            body["returns"] = [_number(r) for r in returns]
        resp = self._client.call("Observe", body)
        self.iteration = int(resp["nextIteration"])
        self._pending = None
        nxt = resp.get("next")
        self._next = nxt if nxt is not None and int(nxt.get("iteration", 0)) == self.iteration else None
        return bool(resp.get("duplicate"))

    def history(self, start=0, limit=0):
        """The observed iterations from ``start`` on (at most ``limit``, 0:
        the server's maximum), each a dict with iteration, config (a list in
        the order of ``names``), reward, frames, elapsedSeconds, returns."""
        resp = self._client.call("GetSession", {"sessionId": self.session_id, "history": True,
                                                "historyFrom": int(start), "historyLimit": int(limit)})
        return resp.get("history", [])

    def refresh(self):
        """Re-read the session's state from the server."""
        self._set_info(self._client.call("GetSession", {"sessionId": self.session_id})["session"])
        return self.info

    def delete(self):
        """Delete the session and its files on the server."""
        self._client.call("DeleteSession", {"sessionId": self.session_id}, idempotent_not_found=True)


def list_sessions(url, token=None):
    """The server's sessions: dicts with id, method, iteration, created."""
    return Client(url, token=token).call("ListSessions", {}).get("sessions", [])


def health(url, token=None):
    """The server's health: status, version, sessions, maxSessions."""
    return Client(url, token=token, retries=0).call("Health", {})
