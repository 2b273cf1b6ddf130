#!/usr/bin/env python3
"""Reads a HAR file with PyPI's haralyzer and checks it against the HAR 1.2 field rules
(http://www.softwareishard.com/blog/har-12-spec/).

Usage: har_check.py FILE

Prints one JSON object: `errors` (every rule broken, empty when the file is valid) and what
haralyzer read: `version`, `creator`, `pages`, the GET and POST counts of its page filters,
and `entries` in haralyzer's order (sorted by start time), each with the values a test
asserts on. Exits 0 once the file was checked, whatever it found; 3 with
{"missing": "haralyzer"} when haralyzer is not installed (pip install haralyzer).
"""
import base64
import binascii
import json
import re
import sys
from urllib.parse import urlsplit

try:
    from haralyzer import HarParser
except ImportError:
    print(json.dumps({"missing": "haralyzer"}))
    sys.exit(3)

# The members each HAR 1.2 object defines; any other member must start with "_".
SPEC_MEMBERS = {
    "log": {"version", "creator", "browser", "pages", "entries", "comment"},
    "creator": {"name", "version", "comment"},
    "entry": {"pageref", "startedDateTime", "time", "request", "response", "cache", "timings",
              "serverIPAddress", "connection", "comment"},
    "request": {"method", "url", "httpVersion", "cookies", "headers", "queryString", "postData",
                "headersSize", "bodySize", "comment"},
    "response": {"status", "statusText", "httpVersion", "cookies", "headers", "content",
                 "redirectURL", "headersSize", "bodySize", "comment"},
    "cookie": {"name", "value", "path", "domain", "expires", "httpOnly", "secure", "comment"},
    "nameValue": {"name", "value", "comment"},
    "postData": {"mimeType", "params", "text", "comment"},
    "param": {"name", "value", "fileName", "contentType", "comment"},
    "content": {"size", "compression", "mimeType", "text", "encoding", "comment"},
    "cache": {"beforeRequest", "afterRequest", "comment"},
    "timings": {"blocked", "dns", "connect", "send", "wait", "receive", "ssl", "comment"},
}
ISO_8601_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$")

errors = []


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_object(value, kind, where, required):
    """Checks that `value` is an object with the `required` members (name -> type check) and
    that its other members are the spec's or start with an underscore."""
    if not isinstance(value, dict):
        errors.append(f"{where}: not an object")
        return False
    for name, check in required.items():
        if name not in value:
            errors.append(f"{where}.{name}: missing")
        elif not check(value[name]):
            errors.append(f"{where}.{name}: wrong type or value {value[name]!r}")
    for name in value:
        if name not in SPEC_MEMBERS[kind] and not name.startswith("_"):
            errors.append(f"{where}.{name}: not a HAR 1.2 member and does not start with '_'")
    return True


def check_list(value, kind, where, required):
    if not isinstance(value, list):
        errors.append(f"{where}: not an array")
        return
    for index, item in enumerate(value):
        check_object(item, kind, f"{where}[{index}]", required)


STRING = lambda v: isinstance(v, str)  # noqa: E731
INTEGER = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
SIZE = lambda v: INTEGER(v) and v >= -1  # noqa: E731
NAME_VALUE = {"name": STRING, "value": STRING}


def check_cookies(cookies, where):
    check_list(cookies, "cookie", where, NAME_VALUE)
    for index, cookie in enumerate(cookies if isinstance(cookies, list) else []):
        for name in ("path", "domain", "expires"):
            if name in cookie and not isinstance(cookie[name], str):
                errors.append(f"{where}[{index}].{name}: not a string")
        if "expires" in cookie and not ISO_8601_MS.match(cookie["expires"]):
            errors.append(f"{where}[{index}].expires: not ISO 8601 {cookie['expires']!r}")
        for name in ("httpOnly", "secure"):
            if name in cookie and not isinstance(cookie[name], bool):
                errors.append(f"{where}[{index}].{name}: not a boolean")


def check_entry(raw, where):
    check_object(raw, "entry", where, {
        "startedDateTime": lambda v: isinstance(v, str) and ISO_8601_MS.match(v) is not None,
        "time": lambda v: is_number(v) and v >= 0,
        "request": lambda v: isinstance(v, dict),
        "response": lambda v: isinstance(v, dict),
        "cache": lambda v: isinstance(v, dict),
        "timings": lambda v: isinstance(v, dict),
    })
    request, response = raw.get("request", {}), raw.get("response", {})
    check_object(request, "request", f"{where}.request", {
        "method": STRING, "url": STRING, "httpVersion": STRING, "cookies": lambda v: isinstance(v, list),
        "headers": lambda v: isinstance(v, list), "queryString": lambda v: isinstance(v, list),
        "headersSize": SIZE, "bodySize": SIZE,
    })
    url = request.get("url", "")
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc or "#" in url:
        errors.append(f"{where}.request.url: not an absolute URL without a fragment {url!r}")
    check_cookies(request.get("cookies", []), f"{where}.request.cookies")
    check_list(request.get("headers", []), "nameValue", f"{where}.request.headers", NAME_VALUE)
    check_list(request.get("queryString", []), "nameValue", f"{where}.request.queryString", NAME_VALUE)
    if "postData" in request:
        post = request["postData"]
        check_object(post, "postData", f"{where}.request.postData", {"mimeType": STRING, "text": STRING})
        if "params" in post:
            check_list(post["params"], "param", f"{where}.request.postData.params", {"name": STRING})
    check_object(response, "response", f"{where}.response", {
        "status": INTEGER, "statusText": STRING, "httpVersion": STRING, "cookies": lambda v: isinstance(v, list),
        "headers": lambda v: isinstance(v, list), "content": lambda v: isinstance(v, dict),
        "redirectURL": STRING, "headersSize": SIZE, "bodySize": SIZE,
    })
    check_cookies(response.get("cookies", []), f"{where}.response.cookies")
    check_list(response.get("headers", []), "nameValue", f"{where}.response.headers", NAME_VALUE)
    content = response.get("content", {})
    check_object(content, "content", f"{where}.response.content", {"size": INTEGER, "mimeType": STRING})
    if "text" in content and not isinstance(content["text"], str):
        errors.append(f"{where}.response.content.text: not a string")
    if content.get("encoding") not in (None, "base64"):
        errors.append(f"{where}.response.content.encoding: unexpected {content['encoding']!r}")
    if response.get("status") == 0 and not (isinstance(response.get("_error"), str) and response["_error"]):
        errors.append(f"{where}.response: status 0 without an _error")
    check_object(raw.get("cache", {}), "cache", f"{where}.cache", {})

    timings = raw.get("timings", {})
    check_object(timings, "timings", f"{where}.timings", {
        "send": lambda v: is_number(v) and v >= 0,
        "wait": lambda v: is_number(v) and v >= 0,
        "receive": lambda v: is_number(v) and v >= 0,
    })
    for name in ("blocked", "dns", "connect", "ssl"):
        if name in timings and not (is_number(timings[name]) and timings[name] >= -1):
            errors.append(f"{where}.timings.{name}: not a number >= -1")
    # `ssl` is included in `connect`, so it is not added again.
    phases = [timings.get(name, -1) for name in ("blocked", "dns", "connect", "send", "wait", "receive")]
    total = sum(value for value in phases if is_number(value) and value >= 0)
    if is_number(raw.get("time")) and abs(total - raw["time"]) > 0.0005:
        errors.append(f"{where}.time: {raw['time']} is not the sum of the timings {total}")


def check_web_socket_messages(raw, where):
    """Checks `_webSocketMessages` as Chrome DevTools' HAR importer reads it (Importer.ts): an
    array of objects, each with a number `time`, an integer `opcode` and a string `data`, and
    `type` send, receive or error; an error row has opcode -1. Returns the rows it would keep."""
    if "_webSocketMessages" not in raw:
        return None
    rows = raw["_webSocketMessages"]
    if raw.get("_resourceType") != "websocket":
        errors.append(f"{where}._webSocketMessages: on an entry whose _resourceType is not websocket")
    if not isinstance(rows, list):
        errors.append(f"{where}._webSocketMessages: not an array")
        return None
    kept = []
    for index, row in enumerate(rows):
        at = f"{where}._webSocketMessages[{index}]"
        if not isinstance(row, dict):
            errors.append(f"{at}: not an object")
            continue
        if list(row)[:4] != ["type", "time", "opcode", "data"]:
            errors.append(f"{at}: members not in DevTools' order type, time, opcode, data: {list(row)}")
        if not is_number(row.get("time")) or not INTEGER(row.get("opcode")) or not STRING(row.get("data")):
            errors.append(f"{at}: DevTools skips a row without a number time, an integer opcode and a string data")
            continue
        if row.get("type") not in ("send", "receive", "error"):
            errors.append(f"{at}.type: not send, receive or error {row.get('type')!r}")
            continue
        if (row["type"] == "error") != (row["opcode"] == -1):
            errors.append(f"{at}: an error row, and only one, has opcode -1")
        if row["opcode"] not in (-1, 1):
            try:
                base64.b64decode(row["data"], validate=True)
            except (binascii.Error, ValueError):
                errors.append(f"{at}.data: opcode {row['opcode']} but not base64")
        kept.append({"type": row["type"], "opcode": row["opcode"], "data": row["data"], "mask": row["type"] == "send"})
    return kept


def decoded_content(content):
    """The response body's bytes as hex when the text is base64, else None."""
    if content.get("encoding") != "base64":
        return None
    try:
        return base64.b64decode(content.get("text", ""), validate=True).hex()
    except (binascii.Error, ValueError):
        errors.append("response.content.text: encoding is base64 but the text is not")
        return None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as file:
        raw = json.load(file)
    if not isinstance(raw, dict) or set(raw) != {"log"}:
        errors.append("$: the document must be an object with one member, log")
    log = raw.get("log", {})
    check_object(log, "log", "log", {
        "version": lambda v: v == "1.2",
        "creator": lambda v: isinstance(v, dict),
        "entries": lambda v: isinstance(v, list),
    })
    check_object(log.get("creator", {}), "creator", "log.creator", {"name": STRING, "version": STRING})
    for index, entry in enumerate(log.get("entries", [])):
        check_entry(entry, f"log.entries[{index}]")

    parser = HarParser.from_file(sys.argv[1])
    entries, get_count, post_count = [], 0, 0
    for page in parser.pages:
        get_count += len(page.get_requests)
        post_count += len(page.post_requests)
        for entry in page.entries:
            if entry.startTime is None or entry.startTime.tzinfo is None:
                errors.append(f"{entry.url}: haralyzer read no zoned start time")
            request, response = entry.request, entry.response
            entries.append({
                "page": page.page_id,
                "startTime": entry.startTime.isoformat(timespec="milliseconds") if entry.startTime else None,
                "time": entry.time,
                "timings": entry.timings,
                "method": request.method,
                "url": request.url,
                "httpVersion": request.httpVersion,
                "requestHeaders": request.headers,
                "requestCookies": request.cookies,
                "queryString": request.queryString,
                "requestBodySize": request.bodySize,
                "requestMimeType": request.mimeType,
                "requestText": request.text,
                "params": request.raw_entry.get("postData", {}).get("params"),
                "status": response.status,
                "statusText": response.statusText,
                "responseHeaders": response.headers,
                "responseCookies": response.raw_entry.get("cookies"),
                "responseBodySize": response.bodySize,
                "redirectURL": response.redirectURL,
                "mimeType": response.mimeType,
                "contentSize": response.contentSize,
                "text": response.text,
                "encoding": response.textEncoding,
                "decodedHex": decoded_content(response.raw_entry.get("content", {})),
                "error": response.raw_entry.get("_error"),
                "errorType": response.raw_entry.get("_errorType"),
                "outcome": entry.raw_entry.get("_outcome"),
                "attempt": entry.raw_entry.get("_attempt"),
                "requestId": entry.raw_entry.get("_requestId"),
                "comment": entry.raw_entry.get("comment"),
                "resourceType": entry.raw_entry.get("_resourceType"),
                "webSocketMessages": check_web_socket_messages(entry.raw_entry, entry.url),
            })
    print(json.dumps({
        "errors": errors,
        "version": parser.version,
        "creator": parser.creator,
        "pages": [page.page_id for page in parser.pages],
        "getCount": get_count,
        "postCount": post_count,
        "entries": entries,
    }))


main()
