"""The edge: every request is decoded and checked here, once, before a servicer sees it.

What a request may carry is stated in the contracts (``proto/tranca/v1/options.proto``):
each string field of a request has its ``max_chars``, and no string may hold a control
character. This module reads those options from the descriptors and applies them the
same way whatever the database behind (PostgreSQL refuses a NUL that SQLite would
store; neither sees one now). A body that does not decode, or breaks a limit, is
answered INVALID_ARGUMENT, reason MALFORMED_REQUEST, and reaches no handler.

The services are registered through ``add_service`` rather than the generated
``add_*_to_server``: the same handlers, with the request's deserializer replaced by
``decoder`` (which never raises: gRPC would answer an exception there with UNKNOWN)
and the handler wrapped to answer a refused request.
"""

from __future__ import annotations

import functools
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, ServiceDescriptor
from google.protobuf.message import DecodeError, Message

from ..v1 import options_pb2
from . import metrics
from .errors import ApiError, abort, malformed, quoted

# C0 and C1 control characters, DEL included (options.proto).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True, slots=True)
class Refused:
    """What ``decoder`` hands the handler instead of a request it refused."""

    error: ApiError


@dataclass(frozen=True, slots=True)
class _StringField:
    name: str
    max_chars: int
    repeated: bool


@dataclass(frozen=True, slots=True)
class _MessageField:
    name: str
    shape: _Shape
    repeated: bool


@dataclass(frozen=True, slots=True)
class _MapField:
    name: str
    max_key_chars: int
    values: _Shape | None  # the value's shape when values are messages


@dataclass(frozen=True, slots=True)
class _Shape:
    """What to check in a message of one type: its string fields, and its message
    fields that hold strings at some depth (others are skipped)."""

    strings: dict[str, _StringField]
    messages: dict[str, _MessageField | _MapField]

    @property
    def empty(self) -> bool:
        return not self.strings and not self.messages


def _max_chars(field: FieldDescriptor) -> int:
    limit = int(field.GetOptions().Extensions[options_pb2.max_chars])
    if limit <= 0:
        # Fail closed, at start-up: a string field of a request without its limit is
        # a contract left incomplete, not a field without a limit.
        raise AssertionError(f"{field.full_name} has no (tranca.v1.max_chars) option")
    return limit


@functools.cache
def shape_of(descriptor: Descriptor) -> _Shape:
    """The checks of a request message type, read once from its descriptor."""
    strings: dict[str, _StringField] = {}
    messages: dict[str, _MessageField | _MapField] = {}
    for field in descriptor.fields:
        repeated = field.is_repeated
        if field.type == FieldDescriptor.TYPE_STRING:
            strings[field.name] = _StringField(field.name, _max_chars(field), repeated)
        elif field.type == FieldDescriptor.TYPE_BYTES:
            raise AssertionError(f"{field.full_name}: bytes fields need a limit of their own")
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            entry = field.message_type
            assert entry is not None
            if entry.GetOptions().map_entry:
                key, value = entry.fields_by_name["key"], entry.fields_by_name["value"]
                if key.type != FieldDescriptor.TYPE_STRING:
                    raise AssertionError(f"{field.full_name}: only string-keyed maps")
                values = shape_of(value.message_type) if value.message_type else None
                if value.type == FieldDescriptor.TYPE_STRING:
                    raise AssertionError(f"{field.full_name}: string map values need a limit")
                messages[field.name] = _MapField(
                    field.name,
                    _max_chars(field),
                    None if values is None or values.empty else values,
                )
            else:
                inner = shape_of(entry)
                if not inner.empty:
                    messages[field.name] = _MessageField(field.name, inner, repeated)
    return _Shape(strings, messages)


def _bad_string(path: str, value: str, limit: int) -> str | None:
    if len(value) > limit:
        return f"{path} is at most {limit} characters"
    found = _CONTROL.search(value)
    if found is not None:
        return f"{path} holds a control character (U+{ord(found.group()):04X})"
    return None


def problem(message: Message, shape: _Shape, path: str = "") -> str | None:
    """Why ``message`` breaks the contract's limits, or None."""
    for field, value in message.ListFields():
        name = field.name
        where = f"{path}{name}"
        string = shape.strings.get(name)
        if string is not None:
            if string.repeated:
                for i, item in enumerate(value):
                    found = _bad_string(f"{where}[{i}]", item, string.max_chars)
                    if found:
                        return found
                continue
            found = _bad_string(where, value, string.max_chars)
            if found:
                return found
            continue
        nested = shape.messages.get(name)
        if nested is None:
            continue
        if isinstance(nested, _MapField):
            for key in value:
                found = _bad_string(f"{where} key {quoted(key)}", key, nested.max_key_chars)
                if found:
                    return found
                if nested.values is not None:
                    found = problem(value[key], nested.values, f"{where}[{quoted(key)}].")
                    if found:
                        return found
        elif nested.repeated:
            for i, item in enumerate(value):
                found = problem(item, nested.shape, f"{where}[{i}].")
                if found:
                    return found
        else:
            found = problem(value, nested.shape, f"{where}.")
            if found:
                return found
    return None


def decoder(cls: type[Message]) -> Callable[[bytes], Message | Refused]:
    """The request's deserializer: the message, or ``Refused`` with the reason."""
    shape = shape_of(cls.DESCRIPTOR)
    from_string = cls.FromString

    def decode(raw: bytes) -> Message | Refused:
        try:
            request = from_string(raw)
        except (DecodeError, ValueError, UnicodeDecodeError):
            return Refused(malformed(f"the body is not a valid {cls.DESCRIPTOR.name}"))
        found = problem(request, shape) if not shape.empty else None
        if found is not None:
            return Refused(malformed(found))
        return request

    return decode


Behavior = Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Any]


def _unary(name: str, behavior: Behavior) -> Behavior:
    async def handle(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        if type(request) is Refused:
            metrics.rpc_count(name, request.error.code.name).inc()
            await abort(context, request.error)
        return await behavior(request, context)

    return handle


def _stream(name: str, behavior: Behavior) -> Behavior:
    async def handle(
        request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        if type(request) is Refused:
            metrics.rpc_count(name, request.error.code.name).inc()
            await abort(context, request.error)
        async for item in behavior(request, context):
            yield item

    return handle


def add_service(server: grpc.aio.Server, servicer: object, service: ServiceDescriptor) -> None:
    """Register ``servicer``'s methods for ``service``, each request through the edge."""
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for method in service.methods:
        if method.client_streaming:
            raise AssertionError(f"{method.full_name}: client streams are not supported")
        request_cls = message_factory.GetMessageClass(method.input_type)
        response_cls = message_factory.GetMessageClass(method.output_type)
        behavior = getattr(servicer, method.name)
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _stream(method.name, behavior),
                request_deserializer=decoder(request_cls),
                response_serializer=response_cls.SerializeToString,
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(method.name, behavior),
                request_deserializer=decoder(request_cls),
                response_serializer=response_cls.SerializeToString,
            )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.full_name, handlers),)
    )
    server.add_registered_method_handlers(service.full_name, handlers)
