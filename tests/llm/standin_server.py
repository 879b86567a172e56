#!/usr/bin/python3
"""Stand-in LLM server for tests (python3 standard library only).

A test double at the process boundary: it speaks the OpenAI-compatible
/v1/chat/completions and the Anthropic /v1/messages APIs on 127.0.0.1 and
answers with scripted responses, in order, one file per response.  See
tests/llm/README.md for the script format.

usage: standin_server.py --scripts DIR --port-file FILE --log FILE
                         [--time-limit SECONDS] [--max-requests N]

The port (ephemeral) is written to --port-file once the socket listens.
Every request is logged to --log as one JSON line (its body, the API, the
script that answered, whether the auth header matched) before the reply is
sent.  The expected key comes from the environment variable
STANDIN_EXPECTED_KEY; the log records only "match", "mismatch", "present"
(no expected key given) or "absent", never a key.  The server stops by
itself after --time-limit seconds or --max-requests requests.
"""
import argparse
import http.server
import json
import os
import sys
import threading
import time

OPENAI_PATH = "/chat/completions"
ANTHROPIC_PATH = "/messages"
DEFAULT_STATUS = {"answer": 200, "truncated": 200, "garbage": 200, "error": 500, "hang": 200}
DEFAULT_ERROR_TYPE = {429: "rate_limit_error", 401: "authentication_error",
                      529: "overloaded_error", 400: "invalid_request_error"}


class Script:
    """The scripted responses, handed out in file-name order."""

    def __init__(self, directory):
        self.files = sorted(f for f in os.listdir(directory)
                            if not f.startswith(".") and f.endswith(".txt"))
        self.directory = directory
        self.next = 0
        self.lock = threading.Lock()

    def take(self):
        with self.lock:
            if self.next >= len(self.files):
                return None, None, None
            name = self.files[self.next]
            self.next += 1
        with open(os.path.join(self.directory, name), encoding="utf-8") as f:
            first, _, text = f.read().partition("\n")
        header = json.loads(first)
        if not isinstance(header, dict):
            raise ValueError(f"{name}: the first line must be a JSON object")
        return name, header, text


def openai_body(n, header, text, finish):
    usage = header.get("usage", {})
    return {"id": f"chatcmpl-standin-{n}", "object": "chat.completion", "created": int(time.time()),
            "model": header.get("model", "standin"),
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": usage.get("input", 11), "completion_tokens": usage.get("output", 7),
                      "total_tokens": usage.get("input", 11) + usage.get("output", 7)}}


def anthropic_body(n, header, text, stop):
    usage = header.get("usage", {})
    content = []
    if header.get("thinking"):
        content.append({"type": "thinking", "thinking": header["thinking"], "signature": "x"})
    content.append({"type": "text", "text": text})
    return {"id": f"msg_standin_{n}", "type": "message", "role": "assistant",
            "model": header.get("model", "standin"), "content": content, "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": usage.get("input", 11), "output_tokens": usage.get("output", 7)}}


def error_body(api, n, status, header, text):
    etype = header.get("error_type", DEFAULT_ERROR_TYPE.get(status, "api_error"))
    code = header.get("error_code")
    if api == "anthropic":
        err = {"type": etype, "message": text}
        if code:
            err["details"] = {"error_code": code}
        return {"type": "error", "error": err, "request_id": f"req_standin_{n}"}
    return {"error": {"message": text, "type": etype, "param": None, "code": code}}


def check_request(api, body):
    """A one-line reason when the request breaks the API's rules, else None."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "'model' is missing"
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        return "'messages' is missing or empty"
    for m in msgs:
        if not isinstance(m, dict) or not isinstance(m.get("content"), str):
            return "a message has no string 'content'"
    if api == "anthropic":
        if not isinstance(body.get("max_tokens"), int):
            return "'max_tokens' is required"
        roles = [m.get("role") for m in msgs]
        if any(r not in ("user", "assistant") for r in roles):
            return "roles must be user or assistant ('system' is top-level)"
        if roles[0] != "user" or any(a == b for a, b in zip(roles, roles[1:])):
            return "roles must alternate, starting with user"
        if "max_completion_tokens" in body:
            return "'max_completion_tokens' is not an Anthropic field"
    elif "max_tokens" in body:
        return "'max_tokens' is deprecated: use 'max_completion_tokens'"
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep stderr quiet
        pass

    def received_key(self, api):
        if api == "anthropic":
            return self.headers.get("x-api-key")
        auth = self.headers.get("Authorization")
        if auth is None:
            return None
        return auth[7:] if auth.startswith("Bearer ") else ""

    def auth_state(self, key):
        expected = os.environ.get("STANDIN_EXPECTED_KEY")
        if key is None:
            return "absent"
        if expected is None:
            return "present"
        return "match" if key == expected else "mismatch"

    def send(self, status, body, headers=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        srv = self.server
        n = srv.count_request()
        if self.path.endswith(OPENAI_PATH):
            api = "openai"
        elif self.path.endswith(ANTHROPIC_PATH):
            api = "anthropic"
        else:
            api = None
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        key = self.received_key(api)
        entry = {"n": n, "path": self.path, "api": api, "auth": self.auth_state(key), "body": body}
        if api == "anthropic":
            entry["anthropic_version"] = self.headers.get("anthropic-version")
        name, header, text = (None, None, None)
        problem = check_request(api, body) if api else f"unknown path {self.path}"
        if not problem:
            name, header, text = srv.script.take()
        entry["script"] = name
        srv.log(entry)
        try:
            if problem:
                self.send(404 if api is None else 400,
                          error_body(api, n, 400, {"error_type": "invalid_request_error"}, problem))
            elif header is None:
                self.send(418, error_body(api, n, 418, {"error_type": "standin_error"},
                                          f"stand-in server: no scripted response left ({n - 1} used)"))
            else:
                self.answer(api, n, header, text, key)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout)
        srv.maybe_stop()

    def answer(self, api, n, header, text, key):
        mode = header.get("mode", "answer")
        status = header.get("status", DEFAULT_STATUS.get(mode, 200))
        headers = {"x-request-id" if api == "openai" else "request-id": f"req-standin-{n}"}
        headers.update(header.get("headers", {}))
        if key is not None:
            # Lets a test check that an echoed key never reaches its files.
            text = text.replace("{received_key}", key)
        time.sleep(float(header.get("delay", 0)))
        if mode == "hang":
            time.sleep(float(header.get("hang", 30)))
            self.close_connection = True
            return
        if mode == "garbage":
            self.send(status, (text or "{\"choices\": [ {garbage").encode(), headers)
        elif mode == "error":
            self.send(status, error_body(api, n, status, header, text.strip()), headers)
        elif mode in ("answer", "truncated"):
            trunc = mode == "truncated"
            if api == "openai":
                self.send(status, openai_body(n, header, text, "length" if trunc else "stop"), headers)
            else:
                self.send(status, anthropic_body(n, header, text, "max_tokens" if trunc else "end_turn"),
                          headers)
        else:
            self.send(500, error_body(api, n, 500, {}, f"stand-in server: unknown mode '{mode}'"))


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, args):
        super().__init__(("127.0.0.1", 0), Handler)
        self.script = Script(args.scripts)
        self.max_requests = args.max_requests
        self.requests = 0
        self.lock = threading.Lock()
        self.log_file = open(args.log, "a", encoding="utf-8")

    def count_request(self):
        with self.lock:
            self.requests += 1
            return self.requests

    def log(self, entry):
        with self.lock:
            self.log_file.write(json.dumps(entry) + "\n")
            self.log_file.flush()

    def maybe_stop(self):
        if self.requests >= self.max_requests:
            threading.Thread(target=self.shutdown, daemon=True).start()


def main():
    p = argparse.ArgumentParser(description="stand-in LLM server for tests")
    p.add_argument("--scripts", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--time-limit", type=float, default=120.0)
    p.add_argument("--max-requests", type=int, default=100)
    args = p.parse_args()
    srv = Server(args)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"{srv.server_address[1]}\n")
    os.replace(tmp, args.port_file)
    timer = threading.Timer(args.time_limit, srv.shutdown)
    timer.daemon = True
    timer.start()
    try:
        srv.serve_forever(poll_interval=0.1)
    finally:
        srv.server_close()
        srv.log_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
