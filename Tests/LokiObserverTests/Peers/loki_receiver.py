"""A Grafana Loki push receiver for tests: it accepts and refuses what Loki does, and records it.

No Loki server can be installed here (it is neither in Debian nor on PyPI), so this script
enforces the documented push contract instead. Sources:

- Push API, https://grafana.com/docs/loki/latest/reference/loki-http-api/#ingest-logs :
  `POST /loki/api/v1/push`, `Content-Type: application/json` (or protobuf), optional
  `Content-Encoding: gzip`; body `{"streams":[{"stream":{labels},"values":[["<unix epoch in
  nanoseconds, as a string>","<log line>"(, {structured metadata})]]}]}`; 204 No Content on
  success; the tenant in `X-Scope-OrgID` when multi-tenancy is on (401 "no org id" without).
- Labels, https://grafana.com/docs/loki/latest/get-started/labels/ : names match
  `[a-zA-Z_][a-zA-Z0-9_]*`; a stream needs at least one label; limits_config
  `max_label_names_per_series` defaults to 15, `max_label_name_length` to 1024,
  `max_label_value_length` to 2048.
- Limits, https://grafana.com/docs/loki/latest/configure/#limits_config : `max_line_size`
  256KB; `reject_old_samples_max_age` 168h (older entries: 400); rate limits answer 429.
- Ordering, https://grafana.com/docs/loki/latest/configure/#accept-out-of-order-writes :
  without `unordered_writes`, an entry older than the newest one of its stream is refused
  ("entry out of order"). This receiver is that strict.

Control (for tests): POST /_script with a JSON list of answers for the next pushes, each
{"status": N, "retry_after": "S", "body": "..."}, {"reset": true} or {"delay": seconds};
POST /_config with {"tenant": "...", "authorization": "..."} to require them;
GET /_received for what was stored; GET /_wait?entries=N&timeout=S blocks until N entries
are stored (or the timeout) and then answers like /_received.
Prints "listening on PORT" once ready.
"""
import gzip
import json
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
TIMESTAMP = re.compile(r"^[0-9]{1,19}$")
MAX_LABELS = 15
MAX_LINE_BYTES = 256 * 1024
MAX_AGE_NS = 168 * 3600 * 10**9

state = {
    "streams": {},        # canonical label JSON -> [[ts, line], ...]
    "newest": {},         # canonical label JSON -> newest timestamp stored
    "pushes": 0,          # pushes stored
    "attempts": [],       # every push attempt: {"time": t, "answer": status or "reset"}
    "rejections": [],     # the 4xx messages sent
    "headers": [],        # the headers of every push attempt
    "gzip_pushes": 0,
    "entries": 0,
    "script": [],
    "tenant": None,
    "authorization": None,
}
condition = threading.Condition()


def refuse(reason):
    raise ValueError(reason)


def validate(body, now_ns):
    """The push's streams as (key, entries), or ValueError with Loki's kind of message."""
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        refuse(f"error parsing push body: {error}")
    if not isinstance(document, dict) or not isinstance(document.get("streams"), list):
        refuse("push body must be an object with a streams array")
    pushed = []
    for stream in document["streams"]:
        if not isinstance(stream, dict) or set(stream) - {"stream", "values"}:
            refuse("each stream is an object with stream and values")
        labels = stream.get("stream")
        if not isinstance(labels, dict) or not labels:
            refuse("error at least one label pair is required per stream")
        if len(labels) > MAX_LABELS:
            refuse(f"stream has {len(labels)} label names; limit {MAX_LABELS}")
        for name, value in labels.items():
            if not LABEL_NAME.match(name) or len(name) > 1024:
                refuse(f"invalid label name {name!r}")
            if not isinstance(value, str) or len(value) > 2048:
                refuse(f"invalid label value for {name!r}")
        values = stream.get("values")
        if not isinstance(values, list) or not values:
            refuse("each stream needs at least one value")
        entries = []
        for value in values:
            if not isinstance(value, list) or len(value) not in (2, 3):
                refuse("each value is [timestamp, line] or [timestamp, line, metadata]")
            timestamp, line = value[0], value[1]
            if not isinstance(timestamp, str) or not TIMESTAMP.match(timestamp):
                refuse(f"timestamp must be a string of nanoseconds, got {timestamp!r}")
            if not isinstance(line, str):
                refuse("line must be a string")
            if len(line.encode("utf-8")) > MAX_LINE_BYTES:
                refuse("line too long")
            if now_ns - int(timestamp) > MAX_AGE_NS:
                refuse(f"entry for stream {labels} has timestamp too old: {timestamp}")
            entries.append((int(timestamp), line))
        pushed.append((json.dumps(labels, sort_keys=True), entries))
    return pushed


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", content_type="text/plain; charset=utf-8", headers=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if status != 204:
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 204:
            self.wfile.write(body)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def snapshot(self):
        with condition:
            received = {key: state[key] for key in ("streams", "pushes", "attempts", "rejections", "headers", "gzip_pushes", "entries")}
            return json.dumps(received).encode()

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/_wait":
            query = parse_qs(url.query)
            wanted = int(query.get("entries", ["1"])[0])
            deadline = time.monotonic() + float(query.get("timeout", ["20"])[0])
            with condition:
                while state["entries"] < wanted and time.monotonic() < deadline:
                    condition.wait(deadline - time.monotonic())
        if url.path in ("/_received", "/_wait"):
            return self.answer(200, self.snapshot(), "application/json")
        self.answer(404, b"not found")

    def do_POST(self):
        body = self.read_body()
        if self.path == "/_script":
            with condition:
                state["script"].extend(json.loads(body))
            return self.answer(200, b"{}", "application/json")
        if self.path == "/_config":
            with condition:
                state.update(json.loads(body))
            return self.answer(200, b"{}", "application/json")
        if self.path != "/loki/api/v1/push":
            return self.answer(404, b"404 page not found")
        with condition:
            step = state["script"].pop(0) if state["script"] else None
            state["headers"].append({name.lower(): value for name, value in self.headers.items()})
            attempt = {"time": time.time(), "answer": None}
            state["attempts"].append(attempt)
        if step and step.get("reset"):
            attempt["answer"] = "reset"
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.close_connection = True
            self.connection.close()
            return
        if step and "delay" in step:
            time.sleep(step["delay"])
        elif step and "status" in step:
            attempt["answer"] = step["status"]
            headers = {"Retry-After": step["retry_after"]} if "retry_after" in step else {}
            return self.answer(step["status"], step.get("body", "scripted").encode(), headers=headers)
        status, message = self.push(body)
        attempt["answer"] = status
        if status == 204:
            return self.answer(204)
        with condition:
            state["rejections"].append(message)
        self.answer(status, message.encode())

    def push(self, body):
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
            return 415, f"unsupported Content-Type {self.headers.get('Content-Type')!r}"
        with condition:
            tenant, authorization = state["tenant"], state["authorization"]
        if tenant is not None and self.headers.get("X-Scope-OrgID") != tenant:
            return 401, "no org id"
        if authorization is not None and self.headers.get("Authorization") != authorization:
            return 401, "unauthorized"
        if (self.headers.get("Content-Encoding") or "").lower() == "gzip":
            try:
                body = gzip.decompress(body)
            except (OSError, EOFError) as error:
                return 400, f"gzip: {error}"
            with condition:
                state["gzip_pushes"] += 1
        try:
            pushed = validate(body, time.time_ns())
        except ValueError as error:
            return 400, str(error)
        with condition:
            # The whole push or nothing: check the order of every stream first.
            newest = dict(state["newest"])
            for key, entries in pushed:
                for timestamp, _ in entries:
                    if timestamp < newest.get(key, -1):
                        return 400, f"entry out of order for stream {key}: {timestamp} is older than {newest[key]}"
                    newest[key] = timestamp
            for key, entries in pushed:
                state["streams"].setdefault(key, []).extend([str(timestamp), line] for timestamp, line in entries)
                state["entries"] += len(entries)
            state["newest"] = newest
            state["pushes"] += 1
            condition.notify_all()
        return 204, ""


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
