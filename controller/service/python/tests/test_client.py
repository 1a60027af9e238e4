"""Tests of the hyperctl Python client against a real ``hyperctl serve``.

The Go test TestPythonClient (cmd/hyperctl/serve_test.go) starts the server
and runs this file with HYPERCTL_TEST_URL and HYPERCTL_TEST_TOKEN set; it
runs under ``make test``. By hand::

    hyperctl serve --listen 127.0.0.1:8421 --state /tmp/st --token-file tok &
    HYPERCTL_TEST_URL=http://127.0.0.1:8421 HYPERCTL_TEST_TOKEN=$(cat tok) \
        python3 -m unittest discover -s controller/service/python/tests -v
"""

import http.server
import math
import os
import socket
import sys
import threading
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import hyperctl  # noqa: E402
from hyperctl import Client, Controller  # noqa: E402

URL = os.environ.get("HYPERCTL_TEST_URL", "")
TOKEN = os.environ.get("HYPERCTL_TEST_TOKEN") or None

SPACE = [{"name": "lr", "low": 1e-5, "high": 1e-3, "scale": "log"},
         {"name": "clip", "low": 0.1, "high": 0.5},
         {"name": "batch", "low": 64, "high": 512, "integer": True}]


def fast_client(url=None, token=TOKEN, retries=8):
    return Client(url or URL, token=token, retries=retries, backoff=0.01, max_backoff=0.05)


class CountingClient(Client):
    """A Client that counts its calls per RPC."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = {}

    def call(self, rpc, body, **kwargs):
        self.calls[rpc] = self.calls.get(rpc, 0) + 1
        return super().call(rpc, body, **kwargs)


def counting_client(url=None):
    return CountingClient(url or URL, token=TOKEN, retries=8, backoff=0.01, max_backoff=0.05)


class DroppingProxy:
    """Forwards requests to the server, but for the first ``drop`` calls of
    one RPC it forwards the request and then closes the connection without
    an answer: the server applied it, the client never hears so."""

    def __init__(self, target, rpc, drop):
        self.target, self.rpc, self.drop, self.forwarded = target, rpc, drop, 0
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                req = urllib.request.Request(proxy.target + self.path, data=body, method="POST",
                                             headers={k: v for k, v in self.headers.items()
                                                      if k.lower() not in ("host", "content-length", "connection")})
                try:
                    with urllib.request.urlopen(req, timeout=30) as r:
                        status, data = r.status, r.read()
                except urllib.error.HTTPError as e:
                    status, data = e.code, e.read()
                proxy.forwarded += 1
                if self.path.endswith("/" + proxy.rpc) and proxy.drop > 0:
                    proxy.drop -= 1
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@unittest.skipUnless(URL, "HYPERCTL_TEST_URL is not set: start `hyperctl serve` and point it there")
class ClientTest(unittest.TestCase):

    def test_suggest_observe_resume_history(self):
        ctl = Controller(URL, SPACE, method="hypercontroller", settings={"d": 5}, interval=2, seed=3,
                         token=TOKEN, client=fast_client())
        self.assertEqual(ctl.method, "hypercontroller")
        self.assertEqual(ctl.settings["d"], 5)
        self.assertEqual(ctl.settings["lambda"], 1)  # the server's default, filled in
        self.assertEqual(ctl.interval, 2)
        seen = []
        for it in range(6):
            cfg = ctl.suggest()
            self.assertEqual(cfg, ctl.suggest(), "suggest is idempotent before observe")
            self.assertEqual(sorted(cfg), ["batch", "clip", "lr"])
            self.assertIsInstance(cfg["batch"], int)
            self.assertTrue(1e-5 <= cfg["lr"] <= 1e-3 and 0.1 <= cfg["clip"] <= 0.5)
            seen.append(cfg)
            self.assertFalse(ctl.observe(0.1 * it - cfg["clip"], frames=256, elapsed=0.25, returns=[1.0, 2.0]))
        self.assertEqual(ctl.iteration, 6)
        self.assertEqual(seen[0], seen[1], "interval 2 keeps the configuration for two iterations")

        again = Controller.resume(URL, ctl.session_id, token=TOKEN)
        self.assertEqual(again.iteration, 6)
        self.assertEqual(again.suggest(), ctl.suggest())
        hist = again.history()
        self.assertEqual([h["iteration"] for h in hist], list(range(6)))
        self.assertEqual(hist[2]["elapsedSeconds"], 0.25)
        self.assertEqual(int(hist[2]["frames"]), 256)
        self.assertEqual(hist[2]["returns"], [1.0, 2.0])
        self.assertEqual(again.history(start=4, limit=1)[0]["iteration"], 4)
        ctl.delete()
        with self.assertRaises(hyperctl.NotFound):
            Controller.resume(URL, ctl.session_id, token=TOKEN)

    def test_observe_brings_the_next_suggestion(self):
        # The same session definition twice: one client follows the
        # suggestions that come with Observe's replies, the other asks with
        # a Suggest request every iteration (it forgets the cached one).
        kw = dict(method="hypercontroller", settings={"d": 5}, interval=3, seed=7, token=TOKEN)
        one = Controller(URL, SPACE, client=counting_client(), **kw)
        two = Controller(URL, SPACE, client=counting_client(), **kw)
        for it in range(10):
            two._next = None
            a, b = one.suggest(), two.suggest()
            self.assertEqual(a, b, "iteration %d: the cached next suggestion differs from Suggest's" % it)
            self.assertEqual(a, one.suggest(), "suggest is idempotent before observe")
            r = 0.1 * it - a["clip"]
            self.assertFalse(one.observe(r))
            self.assertFalse(two.observe(r))
        self.assertEqual(one._client.calls["Suggest"], 1, "only the first iteration sends a Suggest")
        self.assertEqual(one._client.calls["Observe"], 10)
        self.assertEqual(two._client.calls["Suggest"], 10)
        # A resumed client has no cached suggestion: it asks, and gets the
        # one the running client holds.
        again = Controller.resume(URL, one.session_id, token=TOKEN, client=counting_client())
        self.assertEqual(again.suggest(), one.suggest())
        self.assertEqual(again._client.calls.get("Suggest"), 1)
        # A cached suggestion for another iteration is not used.
        one.iteration = 11
        with self.assertRaises(hyperctl.FailedPrecondition):
            one.suggest()
        one.refresh()
        self.assertEqual(one.suggest(), again.suggest())
        one.delete()
        two.delete()

    def test_errors_carry_the_servers_message(self):
        cases = [
            (dict(method="hyperctrl"), hyperctl.InvalidArgument, "method: unknown controller \"hyperctrl\"; valid controllers: bilevel"),
            (dict(settings={"dd": 3}), hyperctl.InvalidArgument, "settings.dd: unknown key (did you mean d?)"),
            (dict(settings={"d": 1}), hyperctl.InvalidArgument, "settings.d: want an integer in [2, 1000]"),
        ]
        for kw, exc, msg in cases:
            with self.assertRaises(exc) as cm:
                Controller(URL, SPACE, token=TOKEN, client=fast_client(), **kw)
            self.assertIn(msg, cm.exception.message)
            self.assertIn(msg, str(cm.exception))
        with self.assertRaises(hyperctl.InvalidArgument) as cm:
            Controller(URL, [{"name": "lr", "low": 1, "high": 0.5}], token=TOKEN, client=fast_client())
        self.assertIn("space[0]: lr: low (1) must be < high (0.5)", cm.exception.message)

        ctl = Controller(URL, SPACE, token=TOKEN, client=fast_client())
        ctl.suggest()
        for bad in (math.nan, math.inf, -math.inf):
            with self.assertRaises(hyperctl.InvalidArgument) as cm:
                ctl.observe(bad)
            self.assertIn("reward", cm.exception.message)
        self.assertEqual(ctl.iteration, 0, "a rejected reward leaves the session where it was")
        ctl.observe(1.0)
        ctl.iteration = 5  # a client that lost track
        with self.assertRaises(hyperctl.FailedPrecondition) as cm:
            ctl.observe(2.0)
        self.assertIn("iteration 5 skips ahead: the session's next iteration is 1", cm.exception.message)
        ctl.refresh()
        self.assertEqual(ctl.iteration, 1)
        with self.assertRaises(hyperctl.AlreadyExists):
            Controller(URL, SPACE, seed=99, session_id=ctl.session_id, token=TOKEN, client=fast_client())
        with self.assertRaises(hyperctl.NotFound):
            Controller.resume(URL, "no-such-session", token=TOKEN)
        ctl.delete()

    def test_lost_acknowledgements_are_retried_safely(self):
        ctl = Controller(URL, SPACE, interval=1, seed=5, token=TOKEN, client=fast_client())
        proxy = DroppingProxy(URL, "Observe", drop=2)
        try:
            via = Controller.resume(proxy.url, ctl.session_id, client=fast_client(proxy.url))
            via.suggest()
            # The first two answers are lost after the server applied the
            # observation; the third attempt is acknowledged as a duplicate.
            self.assertTrue(via.observe(0.5))
            self.assertEqual(via.iteration, 1)
            cached = via.suggest()  # from the duplicate's reply, no request
            ctl.refresh()  # to iteration 1, and a Suggest request
            self.assertEqual(cached, ctl.suggest(), "a duplicate's next suggestion is Suggest's")
            self.assertFalse(via.observe(0.7))
        finally:
            proxy.close()
        self.assertEqual([h["iteration"] for h in ctl.history()], [0, 1], "each iteration applied once")
        ctl.delete()

    def test_start_is_in_force_for_the_first_period(self):
        start = {"lr": 3e-5, "clip": 0.2, "batch": 128}
        with self.assertRaises(ValueError):
            Controller(URL, SPACE, start={"lr": 3e-5}, token=TOKEN, client=fast_client())
        with self.assertRaises(hyperctl.InvalidArgument) as e:
            Controller(URL, SPACE, start=dict(start, clip=0.9), token=TOKEN, client=fast_client())
        self.assertIn("start", e.exception.message)
        ctl = Controller(URL, SPACE, interval=3, seed=5, start=start, token=TOKEN, client=fast_client())
        for it in range(3):
            self.assertEqual(ctl.suggest(), start)
            ctl.observe(0.1 * it)
        ctl.delete()

    def test_create_retry_is_idempotent(self):
        proxy = DroppingProxy(URL, "CreateSession", drop=1)
        try:
            ctl = Controller(proxy.url, SPACE, seed=2, client=fast_client(proxy.url))
        finally:
            proxy.close()
        ids = [s["id"] for s in hyperctl.list_sessions(URL, token=TOKEN)]
        self.assertEqual(ids.count(ctl.session_id), 1)
        self.assertTrue(ctl.info is not None)
        Controller.resume(URL, ctl.session_id, token=TOKEN).delete()

    def test_unreachable_server_and_wrong_token(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        c = fast_client("http://127.0.0.1:%d" % port, retries=3)
        with self.assertRaises(hyperctl.Unavailable):
            c.call("Health", {})
        self.assertEqual(c.attempts, 4, "one attempt plus three retries")
        if TOKEN:
            with self.assertRaises(hyperctl.Unauthenticated):
                hyperctl.health(URL, token="wrong-token-0123456789")
        self.assertEqual(hyperctl.health(URL, token=TOKEN)["status"], "SERVING")


if __name__ == "__main__":
    unittest.main()
