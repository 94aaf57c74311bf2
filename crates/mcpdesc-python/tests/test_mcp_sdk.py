"""A server written with the official Python SDK (``mcp``), listed through the SDK's client
in-process, turned into an MCP Description and validated: what the SDK serves in either
protocol era is a valid description, and a broken copy gives the specific rule."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any, Literal

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

import mcpdesc
from mcpdesc import Engine, validate


class Day(BaseModel):
    date: str
    high: float
    low: float


class Forecast(BaseModel):
    city: str
    days: list[Day]


def build_server() -> MCPServer:
    server = MCPServer(
        name="sdk-weather",
        title="SDK Weather",
        version="2.3.1",
        instructions="Forecasts and conditions for cities.",
    )

    @server.tool(title="Get Forecast", annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True))
    def get_forecast(
        city: str = Field(description="The city"),
        days: int = Field(3, ge=1, le=10),
        units: Literal["metric", "imperial"] | None = None,
    ) -> Forecast:
        """Daily forecast for a city"""
        return Forecast(city=city, days=[Day(date=f"day-{i + 1}", high=20 + i, low=10 + i) for i in range(days)])

    @server.tool(title="Set Alert", annotations=ToolAnnotations(destructive_hint=False, idempotent_hint=True))
    def set_alert(
        city: str,
        threshold: float,
        direction: Literal["above", "below"],
        tags: list[str] | None = Field(None, max_length=5),
    ) -> str:
        """Alert when a temperature threshold is crossed"""
        return f"alert set for {city}"

    @server.tool()
    def ping() -> str:
        """Checks that the server answers"""
        return "pong"

    @server.resource(
        "weather://stations", name="stations", title="Weather stations", mime_type="application/json"
    )
    def stations() -> str:
        """Every station the server reads"""
        return "[]"

    @server.resource("weather://cities/{city}/report", name="city-report", mime_type="text/plain")
    def city_report(city: str) -> str:
        """Today's report for one city"""
        return f"Report for {city}"

    @server.prompt(title="Plan a trip")
    def plan_trip(destination: str, month: str | None = None) -> str:
        """Suggest what to pack for a destination"""
        return f"What should I pack for {destination}?"

    return server


def dump(model: BaseModel) -> dict[str, Any]:
    """A model as the JSON it was read from: aliases, and only the members the wire set (the
    models fill defaults in, such as a `resultType` the handshake era does not have)."""
    return model.model_dump(by_alias=True, exclude_none=True, exclude_unset=True, mode="json")


def pick(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """Only the members an MCP Description has (the wire adds `_meta` and the like)."""
    return {k: data[k] for k in keys if k in data}


TOOL_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations", "execution", "icons")


async def describe(mode: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The negotiated protocol version, the description of what the client sees, and the
    result of one real tool call."""
    async with Client(build_server(), mode=mode) as client:  # type: ignore[arg-type]
        info = dump(client.server_info) if client.server_info is not None else {}
        tools = (await client.list_tools()).tools
        resources = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        prompts = (await client.list_prompts()).prompts
        called = dump(await client.call_tool("get_forecast", {"city": "Lisbon", "days": 2}))
        version = client.protocol_version
        description = {
            "mcpdesc": "0.8.0",
            "info": pick(info, ("name", "title", "version")),
            "protocolVersions": [version],
            "capabilities": [dump(client.server_capabilities)],
            "tools": [pick(dump(t), TOOL_KEYS) for t in tools],
            "resources": [pick(dump(r), ("uri", "name", "title", "description", "mimeType")) for r in resources],
            "resourceTemplates": [
                pick(dump(t), ("uriTemplate", "name", "title", "description", "mimeType")) for t in templates
            ],
            "prompts": [pick(dump(p), ("name", "title", "description", "arguments")) for p in prompts],
        }
        return version, description, called


@pytest.fixture(scope="module", params=["legacy", "auto"], ids=["handshake-era", "modern"])
def served(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any], dict[str, Any]]:
    return asyncio.run(describe(request.param))


def test_is_listed_through_the_sdk_client_as_registered(served: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    version, description, called = served
    assert version in ("2025-11-25", "2026-07-28")
    assert [t["name"] for t in description["tools"]] == ["get_forecast", "set_alert", "ping"]
    forecast = description["tools"][0]
    assert forecast["inputSchema"]["type"] == "object"
    assert forecast["inputSchema"]["required"] == ["city"]
    assert forecast["outputSchema"]["type"] == "object"
    assert forecast["annotations"]["readOnlyHint"] is True
    capabilities = description["capabilities"][0]
    assert {"tools", "resources", "prompts"} <= capabilities.keys(), capabilities
    assert description["info"]["name"] == "sdk-weather"
    assert description["resources"][0]["uri"] == "weather://stations"
    assert description["resourceTemplates"][0]["uriTemplate"] == "weather://cities/{city}/report"
    assert description["prompts"][0]["arguments"][0]["name"] == "destination"
    # The server really serves what it lists.
    assert len(called["structuredContent"]["days"]) == 2


def test_is_a_valid_mcp_description(served: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    version, description, _ = served
    report = validate(description)
    assert report.valid, [str(d) for d in report.diagnostics]
    assert report.diagnostics == []
    assert report.release == "0.8.0"
    # As JSON and YAML text too, with positions for anything it would report.
    text = validate(json.dumps(description, indent=2), path="sdk-weather.json")
    assert text.valid, [str(d) for d in text.diagnostics]
    assert text.path == "sdk-weather.json"


def test_a_real_call_is_a_valid_tool_example(served: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    _, description, called = served
    documented = copy.deepcopy(description)
    result = {k: v for k, v in called.items() if k != "_meta"}
    documented["tools"][0]["examples"] = {"lisbon": {"input": {"city": "Lisbon", "days": 2}, "result": result}}
    report = validate(documented)
    assert report.valid, [str(d) for d in report.diagnostics]

    # The same example with a result the output schema refuses.
    wrong = copy.deepcopy(documented)
    wrong["tools"][0]["examples"]["lisbon"]["result"]["structuredContent"]["days"] = "two"
    findings = validate(wrong).errors
    assert findings, "an example result that breaks the output schema is an error"
    assert all(d.pointer.startswith("/tools/0/examples/lisbon") for d in findings), [str(d) for d in findings]


def test_an_input_schema_whose_root_is_not_an_object_breaks_the_description(
    served: tuple[str, dict[str, Any], dict[str, Any]],
) -> None:
    version, description, _ = served
    broken = copy.deepcopy(description)
    broken["tools"][1]["inputSchema"] = {"type": "array", "items": {"type": "string"}}
    report = validate(broken)
    assert not report.valid
    found = [d for d in report.errors if d.rule == "mcpdesc.tool.input-schema-object-root"]
    assert len(found) == 1, [str(d) for d in report.diagnostics]
    assert found[0].pointer.startswith("/tools/1/inputSchema")
    assert found[0].versions == (version,)


def test_an_output_schema_whose_root_is_not_an_object_breaks_the_description_before_2026(
    served: tuple[str, dict[str, Any], dict[str, Any]],
) -> None:
    version, description, _ = served
    broken = copy.deepcopy(description)
    broken["tools"][0]["outputSchema"] = {"type": "string"}
    report = Engine(protocol_versions=version).validate(broken)
    found = [
        d
        for d in report.errors
        if d.rule == "mcp.tool.output-schema-object-root" and d.pointer.startswith("/tools/0/outputSchema")
    ]
    if version < "2026-07-28":
        assert [d.versions for d in found] == [(version,)], [str(d) for d in report.diagnostics]
    else:
        # From MCP 2026-07-28 structured output may be any JSON value.
        assert found == [], [str(d) for d in report.diagnostics]


def test_a_tool_listed_twice_for_one_protocol_version_breaks_the_description(
    served: tuple[str, dict[str, Any], dict[str, Any]],
) -> None:
    version, description, _ = served
    broken = copy.deepcopy(description)
    broken["tools"].append(copy.deepcopy(broken["tools"][2]))
    report = mcpdesc.validate(broken)
    assert not report.valid
    assert [(d.rule, d.pointer, d.versions) for d in report.errors] == [
        ("mcpdesc.tool.scope-disjoint", "/tools/3", (version,))
    ]


def test_both_eras_in_one_description(served: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    # What the SDK serves in the handshake era and in the modern one, described as one
    # server covering both versions.
    _, description, _ = served
    both = copy.deepcopy(description)
    both["protocolVersions"] = ["2025-11-25", "2026-07-28"]
    report = validate(both)
    assert report.valid, [str(d) for d in report.diagnostics]
