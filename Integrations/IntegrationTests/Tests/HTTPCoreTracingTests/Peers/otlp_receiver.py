#!/usr/bin/env python3
"""An OTLP/HTTP trace, log and metric receiver for the tests: decodes each export with the official
protobuf definitions (PyPI's opentelemetry-proto) and serves what it got as JSON.

POST /v1/traces   application/x-protobuf ExportTraceServiceRequest -> 200 ExportTraceServiceResponse
POST /v1/logs     application/x-protobuf ExportLogsServiceRequest -> 200 ExportLogsServiceResponse
POST /v1/metrics  application/x-protobuf ExportMetricsServiceRequest -> 200 ExportMetricsServiceResponse
GET  /spans       every span received so far, as a JSON list
GET  /logs        every log record received so far, as a JSON list
GET  /metrics     the latest data point of each metric stream (name and attributes), as a
                  JSON list: exports are cumulative and repeat, so only the newest counts
GET  /spans?count=N&timeout=S (or /logs?...)
                  blocks until at least N arrived (or S seconds passed), then answers like
                  /spans: the test waits on the receiver instead of polling it

Prints "listening on PORT" once it listens on 127.0.0.1 (port 0 picks a free one).
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from urllib.parse import parse_qs, urlparse

from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

RECEIVED = {"/spans": [], "/logs": [], "/metrics": []}
# The index in RECEIVED["/metrics"] of each stream's point, by name and attributes.
STREAMS = {}
ARRIVED = threading.Condition()


def value_of(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(value) for value in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


def spans_in(body):
    request = trace_service_pb2.ExportTraceServiceRequest()
    request.ParseFromString(body)
    received = []
    for resource_spans in request.resource_spans:
        resource = {a.key: value_of(a.value) for a in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                received.append({
                    "name": span.name,
                    "kind": span.kind,
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "status_code": span.status.code,
                    "attributes": {a.key: value_of(a.value) for a in span.attributes},
                    "resource": resource,
                })
    return received


def logs_in(body):
    request = logs_service_pb2.ExportLogsServiceRequest()
    request.ParseFromString(body)
    received = []
    for resource_logs in request.resource_logs:
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                received.append({
                    "body": value_of(record.body),
                    "severity_text": record.severity_text,
                    "trace_id": record.trace_id.hex(),
                    "span_id": record.span_id.hex(),
                    "attributes": {a.key: value_of(a.value) for a in record.attributes},
                })
    return received


def metric_points_in(body):
    request = metrics_service_pb2.ExportMetricsServiceRequest()
    request.ParseFromString(body)
    received = []
    for resource_metrics in request.resource_metrics:
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                kind = metric.WhichOneof("data")
                for point in getattr(metric, kind).data_points:
                    item = {
                        "name": metric.name,
                        "unit": metric.unit,
                        "kind": kind,
                        "attributes": {a.key: value_of(a.value) for a in point.attributes},
                    }
                    if kind == "histogram":
                        item.update(count=point.count, sum=point.sum, explicit_bounds=list(point.explicit_bounds),
                                    bucket_counts=list(point.bucket_counts))
                    elif kind in ("sum", "gauge"):
                        item["value"] = point.as_int if point.WhichOneof("value") == "as_int" else point.as_double
                    received.append(item)
    return received


def keep_latest(points):
    for point in points:
        key = (point["name"], json.dumps(point["attributes"], sort_keys=True))
        if key in STREAMS:
            RECEIVED["/metrics"][STREAMS[key]] = point
        else:
            STREAMS[key] = len(RECEIVED["/metrics"])
            RECEIVED["/metrics"].append(point)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path not in ("/v1/traces", "/v1/logs", "/v1/metrics"):
            self.send_response(404)
            self.end_headers()
            return
        if self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_response(415)
            self.end_headers()
            return
        if self.path == "/v1/traces":
            kind, received, answer = "/spans", spans_in(body), trace_service_pb2.ExportTraceServiceResponse()
        elif self.path == "/v1/logs":
            kind, received, answer = "/logs", logs_in(body), logs_service_pb2.ExportLogsServiceResponse()
        else:
            kind, received, answer = "/metrics", metric_points_in(body), metrics_service_pb2.ExportMetricsServiceResponse()
        with ARRIVED:
            if kind == "/metrics":
                keep_latest(received)
            else:
                RECEIVED[kind].extend(received)
            ARRIVED.notify_all()
        answer = answer.SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def do_GET(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        wanted = int(query.get("count", ["0"])[0])
        deadline = time.monotonic() + float(query.get("timeout", ["0"])[0])
        items = RECEIVED.get(url.path, [])
        with ARRIVED:
            while len(items) < wanted and time.monotonic() < deadline:
                ARRIVED.wait(deadline - time.monotonic())
            answer = json.dumps(items).encode()
        self.send_response(200 if url.path in RECEIVED else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()
