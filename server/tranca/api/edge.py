"""The edge: every request is decoded and checked here, once, before a servicer sees it.

What a request may carry is stated in the contracts (``proto/tranca/v1/options.proto``):
each string field of a request has its ``max_chars``, and no string may hold a control
character; each bytes field has its ``max_bytes``. This module reads those options
from the descriptors and applies them the same way whatever the database behind
(PostgreSQL refuses a NUL that SQLite would store; neither sees one now). A body that
does not decode, or breaks a limit, is answered INVALID_ARGUMENT, reason
MALFORMED_REQUEST, and reaches no handler.

The services are registered through ``add_service`` rather than the generated
``add_*_to_server``: the same handlers, with the request's deserializer replaced by
``decoder`` (which never raises: gRPC would answer an exception there with UNKNOWN)
and the handler wrapped to answer a refused request.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, ServiceDescriptor
from google.protobuf.message import DecodeError, Message

from .. import metrics
from ..services.errors import Refused, malformed
from ..v1 import options_pb2
from .errors import ApiError, abort, quoted, to_api_error

# C0 and C1 control characters, DEL included (options.proto).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True, slots=True)
class Rejected:
    """What ``decoder`` hands the handler instead of a request it refused."""

    error: Refused


# Where a message breaks the limits, how, and the field's limit in characters
# ("cards[2]", "is at most 4 characters", 4), or None. The hot path (nothing wrong)
# builds no string: a parent prefixes its field's name only on the way out of a
# refusal.
Problem = tuple[str, str, int]
Check = Callable[[Any], "Problem | None"]


def _max_chars(field: FieldDescriptor) -> int:
    limit = int(field.GetOptions().Extensions[options_pb2.max_chars])
    if limit <= 0:
        # Fail closed, at start-up: a string field of a request without its limit is
        # a contract left incomplete, not a field without a limit.
        raise AssertionError(f"{field.full_name} has no (tranca.v1.max_chars) option")
    return limit


def _max_bytes(field: FieldDescriptor) -> int:
    limit = int(field.GetOptions().Extensions[options_pb2.max_bytes])
    if limit <= 0:
        raise AssertionError(f"{field.full_name} has no (tranca.v1.max_bytes) option")
    return limit


def _bytes_step(name: str, limit: int) -> Check:
    def blob(message: Any) -> Problem | None:
        if len(getattr(message, name)) <= limit:
            return None
        return name, f"is at most {limit} bytes", limit

    return blob


# A MALFORMED_REQUEST's ``problem`` particular where a string broke its contract's
# limits: too long, or holding a control character.
TOO_LONG, CONTROL_CHARACTER = "too_long", "control_character"
_CONTROL_PROBLEM = "holds a control character"


def _bad_string(value: str, limit: int) -> str | None:
    if len(value) > limit:
        return f"is at most {limit} characters"
    # Almost every string is printable (no control, format or separator character
    # but the space): one C call. The rest are searched for control characters only.
    if not value.isprintable():
        found = _CONTROL.search(value)
        if found is not None:
            return f"{_CONTROL_PROBLEM} (U+{ord(found.group()):04X})"
    return None


def _string_step(name: str, limit: int, repeated: bool) -> Check:
    if repeated:

        def strings(message: Any) -> Problem | None:
            # One copy out of the container: each element read from it costs a call.
            for i, item in enumerate(list(getattr(message, name))):
                if len(item) > limit or not item.isprintable():
                    found = _bad_string(item, limit)
                    if found:
                        return f"{name}[{i}]", found, limit
            return None

        return strings

    def string(message: Any) -> Problem | None:
        value = getattr(message, name)
        if len(value) <= limit and value.isprintable():
            return None
        found = _bad_string(value, limit)
        return None if found is None else (name, found, limit)

    return string


def _message_step(name: str, inner: Check, repeated: bool, in_oneof: bool) -> Check:
    if repeated:

        def messages(message: Any) -> Problem | None:
            for i, item in enumerate(getattr(message, name)):
                found = inner(item)
                if found:
                    return f"{name}[{i}].{found[0]}", found[1], found[2]
            return None

        return messages

    def one(message: Any) -> Problem | None:
        # An unset submessage holds nothing (a oneof's member is only called when set).
        if not in_oneof and not message.HasField(name):
            return None
        found = inner(getattr(message, name))
        return None if found is None else (f"{name}.{found[0]}", found[1], found[2])

    return one


def _map_step(name: str, key_limit: int, values: Check | None) -> Check:
    def entries(message: Any) -> Problem | None:
        mapping = getattr(message, name)
        for key in mapping:
            found = _bad_string(key, key_limit)
            if found:
                return f"{name} key {quoted(key)}", found, key_limit
            if values is not None:
                inner = values(mapping[key])
                if inner:
                    return f"{name}[{quoted(key)}].{inner[0]}", inner[1], inner[2]
        return None

    return entries


def _oneof_step(oneof: str, members: dict[str, Check]) -> Check:
    """Only the member set is checked: one ``WhichOneof`` rather than a test each."""

    def member(message: Any) -> Problem | None:
        which = message.WhichOneof(oneof)
        step = members.get(which) if which is not None else None
        return step(message) if step is not None else None

    return member


@functools.cache
def checker(descriptor: Descriptor) -> Check | None:
    """The check of a request message type, built once from its descriptor: a step per
    field that holds strings at some depth; None when no field does."""
    steps: list[Check] = []
    oneofs: dict[str, dict[str, Check]] = {}
    for field in descriptor.fields:
        step: Check | None = None
        repeated = field.is_repeated
        group = field.containing_oneof
        if field.type == FieldDescriptor.TYPE_STRING:
            step = _string_step(field.name, _max_chars(field), repeated)
        elif field.type == FieldDescriptor.TYPE_BYTES:
            if repeated:
                raise AssertionError(f"{field.full_name}: no repeated bytes in a request")
            step = _bytes_step(field.name, _max_bytes(field))
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            entry = field.message_type
            assert entry is not None
            if entry.GetOptions().map_entry:
                key, value = entry.fields_by_name["key"], entry.fields_by_name["value"]
                if key.type != FieldDescriptor.TYPE_STRING:
                    raise AssertionError(f"{field.full_name}: only string-keyed maps")
                if value.type == FieldDescriptor.TYPE_STRING:
                    raise AssertionError(f"{field.full_name}: string map values need a limit")
                values = checker(value.message_type) if value.message_type else None
                step = _map_step(field.name, _max_chars(field), values)
            else:
                inner = checker(entry)
                if inner is not None:
                    step = _message_step(field.name, inner, repeated, group is not None)
        if step is None:
            continue
        if group is not None:
            oneofs.setdefault(group.name, {})[field.name] = step
        else:
            steps.append(step)
    steps += [_oneof_step(name, members) for name, members in oneofs.items()]
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]

    def check(message: Any) -> Problem | None:
        for step in steps:
            found = step(message)
            if found:
                return found
        return None

    return check


def decoder(cls: type[Message]) -> Callable[[bytes], Message | Rejected]:
    """The request's deserializer: the message, or ``Rejected`` with the reason."""
    check = checker(cls.DESCRIPTOR)
    from_string = cls.FromString

    def decode(raw: bytes) -> Message | Rejected:
        try:
            request = from_string(raw)
        except (DecodeError, ValueError, UnicodeDecodeError):
            return Rejected(malformed(f"the body is not a valid {cls.DESCRIPTOR.name}"))
        found = check(request) if check is not None else None
        if found is not None:
            return Rejected(breaks_limits(found))
        return request

    return decode


def breaks_limits(found: Problem) -> Refused:
    """MALFORMED_REQUEST for a request that breaks the contracts' limits, with the
    field and its limit as particulars (``field``, ``max_chars``) for an app's own
    wording."""
    path, problem, limit = found
    refused = malformed(f"{path} {problem}")
    # Which limit it broke, for the wording in the caller's language (localized.py).
    kind = CONTROL_CHARACTER if problem.startswith(_CONTROL_PROBLEM) else TOO_LONG
    return Refused(
        refused.kind,
        refused.reason,
        refused.message,
        {"field": path[:200], "max_chars": str(limit), "problem": kind},
    )


Behavior = Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Any]


def _api_error(refused: Rejected) -> ApiError:
    error = to_api_error(refused.error)
    assert error is not None
    return error


def guarded_unary(name: str, behavior: Behavior) -> Behavior:
    """A unary handler that answers a refused request (``Rejected``) itself."""

    async def handle(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        if type(request) is Rejected:
            error = _api_error(request)
            metrics.rpc_count(name, error.code.name).inc()
            await abort(context, error)
        return await behavior(request, context)

    return handle


def guarded_stream(name: str, behavior: Behavior) -> Behavior:
    """The same for a server-streaming handler (an async generator; the browser
    port iterates it)."""

    async def handle(
        request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        if type(request) is Rejected:
            error = _api_error(request)
            metrics.rpc_count(name, error.code.name).inc()
            await abort(context, error)
        # No loop variable: it would keep the last message alive while the stream waits.
        items = aiter(behavior(request, context))
        while True:
            try:
                yield await anext(items)
            except StopAsyncIteration:
                return

    return handle


def written_stream(name: str, behavior: Behavior) -> Behavior:
    """``guarded_stream`` for the gRPC port, writing each message with
    ``context.write`` rather than yielding it: gRPC's loop over a handler's yields
    keeps the last message alive until the next one, and a watch stream's next one
    may be hours away (a few KB each, times every open stream)."""

    async def handle(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        if type(request) is Rejected:
            error = _api_error(request)
            metrics.rpc_count(name, error.code.name).inc()
            await abort(context, error)
        # The handler's own generator, not guarded_stream's around it: one layer
        # fewer held by every open stream.
        async with contextlib.aclosing(behavior(request, context)) as items:
            while True:  # no loop variable: nothing is kept while the stream waits
                try:
                    await context.write(await anext(items))
                except StopAsyncIteration:
                    return

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
                written_stream(method.name, behavior),
                request_deserializer=decoder(request_cls),
                response_serializer=response_cls.SerializeToString,
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                guarded_unary(method.name, behavior),
                request_deserializer=decoder(request_cls),
                response_serializer=response_cls.SerializeToString,
            )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.full_name, handlers),)
    )
    server.add_registered_method_handlers(service.full_name, handlers)
