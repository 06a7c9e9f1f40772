"""The SDK's models follow the OpenAPI document of the running server: a field added, removed,
renamed, made nullable or given another enum value on one side and not the other fails here."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Literal, Union

import httpx
import pytest

from beckon import BeckonError, models
from conftest import Server

Schema = dict[str, Any]


@pytest.fixture(scope="module")
def document(server: Server) -> Schema:
    response = httpx.get(f"{server.url}/api/openapi.json")
    assert response.status_code == 200
    return dict(response.json())


def resolve(document: Schema, schema: Schema) -> Schema:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = document["components"]["schemas"][name]
    return schema


def variants(document: Schema, schema: Schema) -> list[Schema]:
    """The object shapes a schema allows (its oneOf / anyOf alternatives, null left out)."""
    schema = resolve(document, schema)
    alternatives = schema.get("oneOf") or schema.get("anyOf")
    if alternatives:
        return [v for alt in alternatives for v in variants(document, alt) if v.get("type") != "null"]
    return [schema]


def nullable(document: Schema, schema: Schema) -> bool:
    schema = resolve(document, schema)
    kinds = schema.get("type")
    if isinstance(kinds, list) and "null" in kinds:
        return True
    return any(resolve(document, alt).get("type") == "null" for alt in schema.get("anyOf", []))


def properties(document: Schema, schema: Schema) -> dict[str, Schema]:
    """Every property of any variant (a property a variant forbids, ``not: {}``, left out); a
    property several variants define is the union (``anyOf``) of their definitions."""
    found: dict[str, list[Schema]] = {}
    for variant in variants(document, schema):
        for name, prop in variant.get("properties", {}).items():
            if prop != {"not": {}}:
                found.setdefault(name, []).append(prop)
    return {name: props[0] if len(props) == 1 else {"anyOf": props} for name, props in found.items()}


def required(document: Schema, schema: Schema) -> set[str]:
    """Properties every variant requires."""
    sets = [set(v.get("required", [])) for v in variants(document, schema)]
    return set.intersection(*sets) if sets else set()


def enum(document: Schema, schema: Schema) -> set[str] | None:
    values: set[str] = set()
    for variant in [resolve(document, schema), *variants(document, schema)]:
        values |= set(variant.get("enum", []))
        if "const" in variant:
            values.add(variant["const"])
    return values or None


def literal_values(hint: Any) -> set[str] | None:
    """The values of a Literal inside an annotation (Optional or a union included)."""
    if typing.get_origin(hint) is Literal:
        return set(typing.get_args(hint))
    if typing.get_origin(hint) in (Union, types.UnionType):
        found = [literal_values(arg) for arg in typing.get_args(hint)]
        merged = set().union(*(f for f in found if f))
        return merged or None
    return None


def allows_none(hint: Any) -> bool:
    return typing.get_origin(hint) in (Union, types.UnionType) and type(None) in typing.get_args(hint)


def compare_dataclass(document: Schema, cls: type, schema: Schema) -> None:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if not f.name.startswith("_")}
    props = properties(document, schema)
    name = cls.__name__
    assert set(fields) == set(
        props
    ), f"{name}: SDK only {set(fields) - set(props)}, API only {set(props) - set(fields)}"
    for field_name, prop in props.items():
        has_default = fields[field_name].default is not dataclasses.MISSING
        assert has_default == (
            field_name not in required(document, schema)
        ), f"{name}.{field_name}: required?"
        assert allows_none(hints[field_name]) == (
            nullable(document, prop) or has_default
        ), f"{name}.{field_name}: null?"
        values = enum(document, prop)
        if values:
            assert literal_values(hints[field_name]) == values, f"{name}.{field_name}: values"


def compare_typed_dict(document: Schema, cls: Any, schema: Schema, passed_apart: set[str] = set()) -> None:
    hints = typing.get_type_hints(cls)
    props = properties(document, schema)
    name = cls.__name__
    assert set(hints) | passed_apart == set(
        props
    ), f"{name}: SDK only {set(hints) - set(props)}, API only {set(props) - set(hints) - passed_apart}"
    assert cls.__required_keys__ == required(document, schema) - passed_apart, f"{name}: required keys"
    for key, prop in props.items():
        values = enum(document, prop)
        if key in hints and values:
            assert literal_values(hints[key]) == values, f"{name}.{key}: values"


def test_the_answer_models_follow_the_document(document: Schema) -> None:
    schemas = document["components"]["schemas"]
    item = schemas["Item"]
    compare_dataclass(document, models.Item, item)
    compare_dataclass(document, models.Actor, item["properties"]["answered_by"])
    compare_dataclass(document, models.Actor, item["properties"]["created_by"])
    # A claim is always someone's (its id is never null): one Actor class serves the three.
    assert set(properties(document, item["properties"]["claimed_by"])) == {"type", "id"}
    compare_dataclass(document, models.Approvals, schemas["Approvals"])
    compare_dataclass(document, models.Response, schemas["Response"])
    compare_dataclass(document, models.ItemAction, schemas["ItemAction"])
    compare_dataclass(document, models.Identity, schemas["Identity"])
    page = document["paths"]["/items"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    compare_dataclass(document, models.ItemPage, page)


def test_the_request_shapes_follow_the_document(document: Schema) -> None:
    schemas = document["components"]["schemas"]
    create = document["paths"]["/items"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    compare_typed_dict(document, models.ItemFields, create, passed_apart={"title", "form"})
    form = create["properties"]["form"]
    compare_typed_dict(document, models.Form, form)
    field = form["properties"]["fields"]["items"]
    compare_typed_dict(document, models.FormField, field)
    select = next(v for v in variants(document, field) if v["properties"]["type"].get("const") == "select")
    compare_typed_dict(document, models.SelectOption, select["properties"]["options"]["items"])
    compare_typed_dict(document, models.Assignee, schemas["Assignee"])
    compare_typed_dict(document, models.EscalationStep, schemas["EscalationStep"])
    compare_typed_dict(document, models.OnTimeout, schemas["OnTimeout"])
    compare_typed_dict(document, models.ApprovalsInput, schemas["ApprovalsInput"])
    compare_typed_dict(document, models.ItemActionInput, schemas["ItemActionInput"])

    parameters = document["paths"]["/items"]["get"]["parameters"]
    query = {"type": "object", "properties": {p["name"]: p["schema"] for p in parameters}}
    compare_typed_dict(document, models.ListFilters, query)


def test_the_comparison_sees_a_drift(document: Schema) -> None:
    """The checks above can fail: a model with a field too many, one too few, or a wrong null."""

    @dataclasses.dataclass
    class Drifted:
        id: str
        status: str

    with pytest.raises(AssertionError, match="SDK only"):
        compare_dataclass(document, Drifted, document["components"]["schemas"]["Item"])

    @dataclasses.dataclass
    class NotNull:
        type: models.ActorType
        id: str

    with pytest.raises(AssertionError, match="null"):
        compare_dataclass(
            document, NotNull, document["components"]["schemas"]["Item"]["properties"]["answered_by"]
        )


def test_the_errors_follow_the_document(document: Schema) -> None:
    """Every error body the document describes has the `error` and `code` BeckonError reads; the
    rest of it is the error's details."""
    schemas = document["components"]["schemas"]
    described = {
        media["schema"]["$ref"].rsplit("/", 1)[-1]
        for path in document["paths"].values()
        for operation in path.values()
        for status, response in operation.get("responses", {}).items()
        if int(status) >= 400
        for media in response.get("content", {}).values()
        if "$ref" in media.get("schema", {})
    }
    assert "Error" in described and "Conflict" in described
    for name in described:
        assert {"error", "code"} <= set(schemas[name]["required"]), name
    codes = set(schemas["Error"]["properties"]["code"]["enum"])
    assert {"not_found", "invalid_status", "rate_limited"} <= codes
    body = {"error": "cannot ack an item that is answered", "code": "invalid_status", "status": "answered"}
    error = BeckonError(409, body)
    assert (error.code, error.details) == ("invalid_status", {"status": "answered"})
