"""A small JSON Schema checker for the keywords our recording schemas use, for machines without
the `jsonschema` package (a GPU box with torch and no registry must still run `make record`).

The app pins and prefers `jsonschema` (store.validate); this is the fallback. It knows: type,
required, properties, additionalProperties, minProperties, items, minItems, enum, const, minimum,
exclusiveMinimum, minLength, pattern, allOf and $ref (to a sibling file or to #/$defs/...).
tests/test_recording_files.py checks that both checkers reject the same damaged files.
"""
from __future__ import annotations

import re

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


class SchemaViolation(Exception):
    """One violation: `path` (list of keys) and a one-line message."""

    def __init__(self, path: list, message: str):
        super().__init__(message)
        self.path, self.message = path, message


def _is(value, t: str) -> bool:
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, _TYPES[t])


def check(value, schema: dict, schemas: dict, path: list | None = None, root: dict | None = None) -> None:
    """Raise SchemaViolation at the first place `value` breaks `schema`."""
    path, root = path or [], root or schema
    if "$ref" in schema:
        ref = schema["$ref"]
        target = root
        if ref.startswith("#/"):
            for part in ref[2:].split("/"):
                target = target[part]
        else:
            target = root = schemas[ref]
        check(value, target, schemas, path, root)
    for sub in schema.get("allOf", ()):
        check(value, sub, schemas, path, root)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, t) for t in types):
            raise SchemaViolation(path, f"{_short(value)} is not of type {' or '.join(map(repr, types))}")
    if "const" in schema and value != schema["const"]:
        raise SchemaViolation(path, f"{schema['const']!r} was expected")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaViolation(path, f"{_short(value)} is not one of {schema['enum']}")
    if _is(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            raise SchemaViolation(path, f"{value} is less than the minimum of {schema['minimum']}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            raise SchemaViolation(path, f"{value} is less than or equal to the minimum of {schema['exclusiveMinimum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            raise SchemaViolation(path, f"{value!r} is too short")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            raise SchemaViolation(path, f"{value!r} does not match {schema['pattern']!r}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise SchemaViolation(path, f"{_short(value)} should be non-empty")
        for i, item in enumerate(value):
            if "items" in schema:
                check(item, schema["items"], schemas, path + [i], root)
    if isinstance(value, dict):
        for name in schema.get("required", ()):
            if name not in value:
                raise SchemaViolation(path, f"{name!r} is a required property")
        if len(value) < schema.get("minProperties", 0):
            raise SchemaViolation(path, f"{_short(value)} should be non-empty")
        props = schema.get("properties", {})
        for name, item in value.items():
            if name in props:
                check(item, props[name], schemas, path + [name], root)
            elif isinstance(schema.get("additionalProperties"), dict):
                check(item, schema["additionalProperties"], schemas, path + [name], root)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
