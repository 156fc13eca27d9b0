#!/usr/bin/python3
"""A local stand-in for the parts of the GitHub REST API that `refbench comment`
uses, served over HTTPS with a certificate made at test time.

    fake_github.py --cert server.pem --key server.key --state state.json \
                   --port-file port --log requests.jsonl [--watch-parent]

State file (JSON object; every key optional except repo and token):
    repo            "owner/name"
    repo_id         number used in pagination links (/repositories/ID/...)
    token           the valid token
    readonly_token  a token that may read but not write (403 on POST/PATCH)
    login           the user the valid tokens comment as (github-actions[bot])
    api_prefix      path prefix of the API, e.g. "/api/v3" (GitHub Enterprise)
    link_style      "repositories" (as github.com: /repositories/ID/issues/...),
                    "repos" (/repos/owner/name/issues/...), "relative"
                    (<comments?...>, relative to the page), "rooted"
                    (</PREFIX/repositories/ID/...>) or "other-host" (as
                    "repositories" but on 127.0.0.1 instead of localhost)
    latency         seconds every response waits before it is sent
    pulls           {"7": {"state": "open", "base": {"ref", "sha"},
                           "head": {"ref", "sha", "repo": "fork/name"}}}
    comments        {"7": [{"body": "...", "user": "someone"}, ...]}
                    or {"7": {"filler": 150, "user": "someone"}}
    faults          a queue; each entry is consumed by the first request it
                    matches:
        match       "GET" | "POST" | "PATCH" | "DELETE" | "any" (default any)
        path        optional regular expression searched in path?query
        times       a count (default 1) or "always"
        status      the status to answer with
        headers     extra response headers (override the defaults)
        body        JSON value (or string sent verbatim) to answer with
        reset_in    seconds: x-ratelimit-remaining: 0 and x-ratelimit-reset
                    set to the epoch second at least that far ahead
        drop        true: close the connection without any response
        delay       seconds to wait before answering (or dropping)
        trickle     seconds between the bytes of the answer (a server that
                    answers a byte at a time)
        after       true: carry the request out first (a POST creates its
                    comment), then answer with the fault instead: the
                    client cannot know that it succeeded

Log: one JSON object per line. Requests: {"kind": "request", "t", "start",
"end", "conn", "method", "path", "query", "status", "headers" (names present,
lowercased), "user_agent", "accept", "api_version", "auth" ("valid",
"readonly", "invalid", "missing"), "body_chars", "fault" (index in the
original queue or null), "dropped", "handled" (with "after": the status the request
really had), "ratelimit" {remaining, reset},
"retry_after"}. TLS handshakes that fail: {"kind": "tls-error", "t", "conn",
"error"}. Connections when they close: {"kind": "connection", "t", "conn",
"requests"} (0 requests: the client hung up after the handshake, e.g. on a
certificate for another host name). Neither the Authorization header nor a token is ever written.

Control endpoints (no authentication): GET /__state returns the comments
per issue, the remaining faults and the request count; POST /__control with
a JSON object replaces the given top-level state keys (faults, comments,
pulls, token, readonly_token, latency). SIGTERM exits cleanly.
"""

import argparse
import datetime
import http.server
import itertools
import json
import math
import os
import re
import signal
import socket
import ssl
import sys
import threading
import time
import urllib.parse

DOCS = "https://docs.github.com/rest"
MAX_BODY_CHARS = 65536
MAX_REQUEST_BYTES = 16 * 1024 * 1024
FIRST_COMMENT_ID = 2147483600  # ids cross 2^31 - 1 after a few dozen comments
RATE_LIMIT = 5000


def iso(ts):
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class State:
    def __init__(self, raw, port):
        self.lock = threading.Lock()
        self.port = port
        self.repo = raw["repo"]
        self.repo_id = int(raw.get("repo_id", 10_000_001))
        self.token = raw["token"]
        self.readonly_token = raw.get("readonly_token")
        self.login = raw.get("login", "github-actions[bot]")
        self.prefix = raw.get("api_prefix", "").rstrip("/")
        self.link_style = raw.get("link_style", "repositories")
        self.latency = float(raw.get("latency", 0))
        self.next_id = FIRST_COMMENT_ID
        self.pulls = {}
        self.comments = {}
        self.faults = []
        self.fault_seq = itertools.count()
        self.requests = 0
        self.used = 0
        self.window_reset = int(time.time()) + 3600
        self.apply(raw)

    def apply(self, raw):
        """Replaces the state keys present in `raw`."""
        for key in ("token", "readonly_token", "login"):
            if key in raw:
                setattr(self, key, raw[key])
        if "latency" in raw:
            self.latency = float(raw["latency"])
        if "pulls" in raw:
            self.pulls = {int(n): p for n, p in raw["pulls"].items()}
        if "comments" in raw:
            self.comments = {}
            for n, seed in raw["comments"].items():
                n = int(n)
                if isinstance(seed, dict):
                    user = seed.get("user", "someone")
                    seed = [{"body": f"Unrelated comment {i + 1}.", "user": user} for i in range(seed["filler"])]
                self.comments[n] = [self.new_comment(n, c["body"], c.get("user", "someone")) for c in seed]
        if "faults" in raw:
            self.faults = []
            for f in raw["faults"]:
                f = dict(f)
                f["index"] = next(self.fault_seq)
                f["left"] = f.get("times", 1)
                self.faults.append(f)

    def new_comment(self, issue, body, login):
        cid = self.next_id
        self.next_id += 1
        now = iso(time.time())
        owner, name = self.repo.split("/")
        return {
            "id": cid,
            "node_id": f"IC_kwDOB{cid:x}",
            "url": f"{self.base_url()}/repos/{self.repo}/issues/comments/{cid}",
            "html_url": f"https://github.com/{owner}/{name}/pull/{issue}#issuecomment-{cid}",
            "issue_url": f"{self.base_url()}/repos/{self.repo}/issues/{issue}",
            "body": body,
            "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
            "created_at": now,
            "updated_at": now,
            "author_association": "NONE",
        }

    def base_url(self):
        return f"https://localhost:{self.port}{self.prefix}"

    def take_fault(self, method, target):
        """The first queued fault matching this request, consumed (under the lock)."""
        for f in self.faults:
            m = f.get("match", "any")
            if m != "any" and m.upper() != method:
                continue
            if "path" in f and not re.search(f["path"], target):
                continue
            if f["left"] != "always":
                f["left"] -= 1
                if f["left"] <= 0:
                    self.faults.remove(f)
            return f
        return None

    def snapshot(self):
        return {
            "comments": {str(n): cs for n, cs in self.comments.items()},
            "faults": [{k: v for k, v in f.items() if k != "left"} | {"times_left": f["left"]} for f in self.faults],
            "requests": self.requests,
        }


class Log:
    def __init__(self, path):
        self.lock = threading.Lock()
        self.file = open(path, "a", encoding="utf-8")

    def write(self, entry):
        line = json.dumps(entry, sort_keys=True)
        with self.lock:
            self.file.write(line + "\n")
            self.file.flush()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, state_raw, context, log):
        self.context = context
        self.log = log
        self.conn_ids = itertools.count(1)
        super().__init__(("127.0.0.1", 0), Handler)
        self.state = State(state_raw, self.server_address[1])

    def finish_request(self, request, client_address):
        # The TLS handshake runs on the connection's own thread so a client
        # that stalls or rejects the certificate never blocks accept().
        conn = next(self.conn_ids)
        request.settimeout(30)
        try:
            tls = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as e:
            self.log.write({"kind": "tls-error", "t": time.time(), "conn": conn, "error": str(e)})
            return
        served = [0]
        try:
            Handler(tls, client_address, self, conn, served)
        finally:
            self.log.write({"kind": "connection", "t": time.time(), "conn": conn, "requests": served[0]})
            try:
                tls.close()
            except OSError:
                pass

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, ssl.SSLError, TimeoutError)):
            return  # the client went away; nothing to report
        super().handle_error(request, client_address)


class Dropped(Exception):
    pass


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "GitHub.com"
    sys_version = ""

    def __init__(self, request, client_address, server, conn, served):
        self.conn_id = conn
        self.served = served
        super().__init__(request, client_address, server)

    def log_message(self, fmt, *args):
        pass  # the JSON log replaces the default stderr lines

    # -- plumbing ---------------------------------------------------------

    def do_GET(self):
        self.dispatch()

    do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = do_GET

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
                if len(data) > MAX_REQUEST_BYTES:
                    raise ValueError("request body too large")
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            raise ValueError("request body too large")
        return self.rfile.read(length) if length else b""

    def dispatch(self):
        st = self.server.state
        self.start = time.time()
        self.auth = "missing"
        self.served[0] += 1
        # http.server folds a leading "//" into "/"; GitHub does not, so the
        # path is taken from the request line as the client sent it.
        parts = self.requestline.split()
        target = parts[1] if len(parts) >= 2 else self.path
        split = urllib.parse.urlsplit(target)
        if target.startswith("//"):
            split = urllib.parse.urlsplit("https://localhost" + target)
        self.req_path, self.req_query = split.path, split.query
        self.entry = {
            "kind": "request",
            "t": self.start,
            "start": self.start,
            "conn": self.conn_id,
            "method": self.command,
            "path": self.req_path,
            "query": self.req_query,
            "headers": sorted({k.lower() for k in self.headers.keys()}),
            "user_agent": self.headers.get("User-Agent"),
            "accept": self.headers.get("Accept"),
            "api_version": self.headers.get("X-GitHub-Api-Version"),
            "auth": "missing",
            "body_chars": None,
            "fault": None,
            "dropped": False,
        }
        try:
            try:
                raw = self.read_body()
            except ValueError:
                self.close_connection = True
                return self.send_json(413, {"message": "Request body too large"})
            if self.req_path.startswith("/__"):
                return self.control(raw)
            with st.lock:
                st.requests += 1
                fault = st.take_fault(self.command, self.path)
            self.auth = self.check_auth()
            self.entry["auth"] = self.auth
            if st.latency:
                time.sleep(st.latency)
            if fault is not None and fault.get("after"):
                self.swallow = True
                self.api(raw)
                self.swallow = False
            if fault is not None:
                return self.fault(fault)
            self.api(raw)
        except Dropped:
            self.entry["dropped"] = True
            self.entry["status"] = None
            self.entry["end"] = time.time()
            self.server.log.write(self.entry)
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def check_auth(self):
        st = self.server.state
        value = self.headers.get("Authorization")
        if value is None:
            return "missing"
        scheme, _, token = value.partition(" ")
        if scheme.lower() not in ("bearer", "token"):
            return "invalid"
        token = token.strip()
        if token and token == st.token:
            return "valid"
        if token and st.readonly_token and token == st.readonly_token:
            return "readonly"
        return "invalid"

    def ratelimit_headers(self):
        st = self.server.state
        with st.lock:
            if self.auth in ("valid", "readonly"):
                st.used += 1
            used = st.used
            reset = st.window_reset
        return {
            "x-ratelimit-limit": str(RATE_LIMIT),
            "x-ratelimit-remaining": str(max(RATE_LIMIT - used, 0)),
            "x-ratelimit-reset": str(reset),
            "x-ratelimit-used": str(used),
            "x-ratelimit-resource": "core",
        }

    swallow = False

    def send_json(self, status, payload, headers=None, raw=None):
        """Sends one complete response in a single write and logs the request."""
        if self.swallow:
            self.entry["handled"] = status  # carried out; the fault answers instead
            return
        if raw is None:
            raw = b"" if payload is None else json.dumps(payload, indent=2).encode("utf-8")
        all_headers = {}
        if not self.req_path.startswith("/__"):
            all_headers.update(self.ratelimit_headers())
            all_headers["x-github-api-version-selected"] = "2022-11-28"
            all_headers["x-github-media-type"] = "github.v3; format=json"
            all_headers["x-github-request-id"] = f"F4KE:{self.conn_id:04X}:{int(self.start * 1000) % 0xFFFFFF:06X}"
        if payload is not None or raw:
            all_headers["Content-Type"] = "application/json; charset=utf-8"
        all_headers.update({k.lower(): str(v) for k, v in (headers or {}).items()})
        head = [f"HTTP/1.1 {status} {self.responses.get(status, ('Unknown',))[0]}"]
        head.append(f"Server: {self.server_version}")
        head.append(f"Date: {self.date_time_string()}")
        for k, v in all_headers.items():
            if k.lower() != "content-length":
                head.append(f"{k}: {v}")
        if self.command == "HEAD":
            raw = b""
        head.append(f"Content-Length: {len(raw)}")
        if self.close_connection:
            head.append("Connection: close")
        data = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + raw
        lowered = {k.lower(): v for k, v in all_headers.items()}
        self.entry["status"] = status
        self.entry["ratelimit"] = {
            "remaining": lowered.get("x-ratelimit-remaining"),
            "reset": lowered.get("x-ratelimit-reset"),
        }
        self.entry["retry_after"] = lowered.get("retry-after")
        # The end time is taken before the last byte leaves: a client cannot
        # have read this response before it is recorded, so a request that
        # starts after it was sent never looks like it overlapped this one.
        self.entry["end"] = time.time()
        if not self.req_path.startswith("/__"):
            self.server.log.write(self.entry)
        if getattr(self, "trickle", 0):
            try:
                for i in range(len(data)):
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    time.sleep(self.trickle)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
                self.close_connection = True
            return
        self.wfile.write(data)
        self.wfile.flush()

    def error(self, status, message, doc=DOCS, **extra):
        body = {"message": message, "documentation_url": doc, "status": str(status)}
        body.update(extra)
        self.send_json(status, body)

    # -- faults and control -----------------------------------------------

    def fault(self, f):
        self.entry["fault"] = f["index"]
        self.trickle = float(f.get("trickle", 0))
        if f.get("delay"):
            time.sleep(float(f["delay"]))
        if f.get("drop"):
            raise Dropped()
        status = int(f.get("status", 500))
        headers = {}
        reset_in = f.get("reset_in")
        body = f.get("body")
        if body is None:
            body = {"message": self.responses.get(status, ("Error",))[0], "documentation_url": DOCS}
        if reset_in is not None:
            headers["x-ratelimit-remaining"] = "0"
            headers["x-ratelimit-used"] = str(RATE_LIMIT)
            headers["x-ratelimit-reset"] = str(math.ceil(time.time() + float(reset_in)))
        headers.update(f.get("headers", {}))
        raw = body.encode("utf-8") if isinstance(body, str) else None
        self.send_json(status, body if raw is None else None, headers, raw=raw)

    def control(self, raw):
        st = self.server.state
        if self.req_path == "/__state" and self.command == "GET":
            with st.lock:
                snap = st.snapshot()
            return self.send_json(200, snap)
        if self.req_path == "/__control" and self.command == "POST":
            try:
                change = json.loads(raw)
                with st.lock:
                    st.apply(change)
                    snap = st.snapshot()
            except (ValueError, KeyError, TypeError) as e:
                return self.send_json(400, {"message": f"bad control request: {e}"})
            return self.send_json(200, snap)
        return self.send_json(404, {"message": "Not Found"})

    # -- the API ----------------------------------------------------------

    def api(self, raw):
        st = self.server.state
        ua = self.headers.get("User-Agent", "").strip()
        if not ua:
            return self.error(
                403,
                "Request forbidden by administrative rules. "
                "Please make sure your request has a User-Agent header "
                "(https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). "
                "Check https://developer.github.com for other possible causes.",
            )
        version = self.headers.get("X-GitHub-Api-Version")
        if version is None:
            return self.error(400, "Missing X-GitHub-Api-Version header: this API requires 2022-11-28")
        if version.strip() != "2022-11-28":
            return self.error(400, f"API version '{version}' is not supported.")
        accepts = [a.split(";")[0].strip().lower() for a in self.headers.get("Accept", "").split(",")]
        if "application/vnd.github+json" not in accepts:
            return self.error(400, "Missing Accept header: application/vnd.github+json is required")
        if self.auth != "valid" and self.auth != "readonly":
            return self.error(401, "Bad credentials")

        path = self.req_path
        if st.prefix:
            if not path.startswith(st.prefix + "/"):
                return self.error(404, "Not Found")
            path = path[len(st.prefix):]
        repo_pat = r"(?:/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)|/repositories/(?P<rid>[0-9]+))"
        routes = [
            ("GET", repo_pat + r"/issues/(?P<n>[0-9]+)/comments", self.list_comments),
            ("POST", repo_pat + r"/issues/(?P<n>[0-9]+)/comments", self.create_comment),
            ("PATCH", repo_pat + r"/issues/comments/(?P<id>[0-9]+)", self.update_comment),
            ("GET", repo_pat + r"/issues/comments/(?P<id>[0-9]+)", self.get_comment),
            ("DELETE", repo_pat + r"/issues/comments/(?P<id>[0-9]+)", self.delete_comment),
            ("GET", repo_pat + r"/pulls/(?P<n>[0-9]+)", self.get_pull),
        ]
        for method, pattern, fn in routes:
            m = re.fullmatch(pattern, path)
            if m and method == self.command:
                if m["rid"] is not None:
                    known = int(m["rid"]) == st.repo_id
                else:
                    known = f"{m['owner']}/{m['name']}".lower() == st.repo.lower()
                if not known:
                    return self.error(404, "Not Found")
                return fn(m, raw)
        return self.error(404, "Not Found")

    def writable(self):
        if self.auth == "readonly":
            self.error(403, "Resource not accessible by integration",
                       doc="https://docs.github.com/rest/issues/comments#create-an-issue-comment")
            return False
        return True

    def issue(self, m):
        n = int(m["n"])
        st = self.server.state
        if n not in st.pulls and n not in st.comments:
            self.error(404, "Not Found", doc="https://docs.github.com/rest/issues/comments#list-issue-comments")
            return None
        return n

    def comment_body(self, raw):
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self.error(400, "Problems parsing JSON")
            return None
        body = doc.get("body") if isinstance(doc, dict) else None
        if not isinstance(body, str):
            self.error(422, "Invalid request.\n\n\"body\" wasn't supplied.")
            return None
        self.entry["body_chars"] = len(body)
        if len(body) > MAX_BODY_CHARS:
            self.error(
                422, "Validation Failed",
                doc="https://docs.github.com/rest/issues/comments#create-an-issue-comment",
                errors=[{"resource": "IssueComment", "code": "custom", "field": "body",
                         "message": "body is too long (maximum is 65536 characters)"}],
            )
            return None
        return body

    def list_comments(self, m, raw):
        st = self.server.state
        n = self.issue(m)
        if n is None:
            return
        params = urllib.parse.parse_qsl(self.req_query, keep_blank_values=True)
        q = dict(params)
        try:
            per_page = int(q.get("per_page", 30))
        except ValueError:
            per_page = 30
        per_page = min(max(per_page, 1), 100) if per_page > 0 else 30
        try:
            page = max(int(q.get("page", 1)), 1)
        except ValueError:
            page = 1
        with st.lock:
            comments = list(st.comments.get(n, []))
        last = max(math.ceil(len(comments) / per_page), 1)
        items = comments[(page - 1) * per_page: page * per_page]
        headers = {}
        if last > 1:
            if st.link_style == "repositories":
                base = f"https://localhost:{st.port}{st.prefix}/repositories/{st.repo_id}/issues/{n}/comments"
            elif st.link_style == "relative":
                base = "comments"
            elif st.link_style == "rooted":
                base = f"{st.prefix}/repositories/{st.repo_id}/issues/{n}/comments"
            elif st.link_style == "other-host":
                base = f"https://127.0.0.1:{st.port}{st.prefix}/repositories/{st.repo_id}/issues/{n}/comments"
            else:
                base = f"https://localhost:{st.port}{st.prefix}/repos/{st.repo}/issues/{n}/comments"
            kept = [(k, v) for k, v in params if k != "page"]

            def url(p):
                return f"<{base}?{urllib.parse.urlencode(kept + [('page', str(p))])}>"

            links = []
            if page > 1:
                links.append(f'{url(min(page - 1, last))}; rel="prev"')
            if page < last:
                links.append(f'{url(page + 1)}; rel="next"')
                links.append(f'{url(last)}; rel="last"')
            if page > 1:
                links.append(f'{url(1)}; rel="first"')
            headers["Link"] = ", ".join(links)
        self.send_json(200, items, headers)

    def create_comment(self, m, raw):
        st = self.server.state
        n = self.issue(m)
        if n is None:
            return
        body = self.comment_body(raw)
        if body is None or not self.writable():
            return
        with st.lock:
            c = st.new_comment(n, body, st.login)
            st.comments.setdefault(n, []).append(c)
        self.send_json(201, c, {"Location": c["url"]})

    def find_comment(self, m):
        """The comment named by the path and its list (call with the lock held)."""
        cid = int(m["id"])
        for cs in self.server.state.comments.values():
            for c in cs:
                if c["id"] == cid:
                    return c, cs
        return None, None

    def comment_not_found(self):
        self.error(404, "Not Found", doc="https://docs.github.com/rest/issues/comments#update-an-issue-comment")

    def get_comment(self, m, raw):
        with self.server.state.lock:
            c, _ = self.find_comment(m)
            c = dict(c) if c else None
        self.send_json(200, c) if c else self.comment_not_found()

    def update_comment(self, m, raw):
        st = self.server.state
        body = self.comment_body(raw)
        if body is None or not self.writable():
            return
        with st.lock:
            c, _ = self.find_comment(m)
            if c is not None:
                c["body"] = body
                c["updated_at"] = iso(time.time())
                c = dict(c)
        self.send_json(200, c) if c else self.comment_not_found()

    def delete_comment(self, m, raw):
        st = self.server.state
        if not self.writable():
            return
        with st.lock:
            c, cs = self.find_comment(m)
            if c is not None:
                cs.remove(c)
        self.send_json(204, None) if c else self.comment_not_found()

    def get_pull(self, m, raw):
        st = self.server.state
        n = int(m["n"])
        p = st.pulls.get(n)
        if p is None:
            return self.error(404, "Not Found", doc="https://docs.github.com/rest/pulls/pulls#get-a-pull-request")
        owner, name = st.repo.split("/")

        def side(s):
            full = s.get("repo", st.repo)
            return {
                "label": f"{full.split('/')[0]}:{s['ref']}",
                "ref": s["ref"],
                "sha": s["sha"],
                "user": {"login": full.split("/")[0]},
                "repo": {"full_name": full, "name": full.split("/")[1], "fork": full != st.repo},
            }

        self.send_json(200, {
            "url": f"{st.base_url()}/repos/{st.repo}/pulls/{n}",
            "html_url": f"https://github.com/{owner}/{name}/pull/{n}",
            "number": n,
            "state": p.get("state", "open"),
            "title": p.get("title", f"Pull request {n}"),
            "base": side(p["base"]),
            "head": side(p["head"]),
        })


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--state", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--watch-parent", action="store_true",
                    help="exit when the process that started this one goes away")
    args = ap.parse_args()

    with open(args.state, encoding="utf-8") as f:
        raw = json.load(f)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(args.cert, args.key)
    context.set_alpn_protocols(["http/1.1"])
    server = Server(raw, context, Log(args.log))

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{server.server_address[1]}\n")
    os.replace(tmp, args.port_file)

    parent = os.getppid()
    while not stop.wait(0.5):
        if args.watch_parent and os.getppid() != parent:
            break
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
