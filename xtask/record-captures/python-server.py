"""A small MCP server built with the official Python SDK (`mcp`), for recording.

It offers one of each thing a description document or a traffic capture can
contain: plain and structured tools, a tool that fails with `isError`, a tool
that reports progress and logs, tools that ask the client for input
(elicitation, sampling, roots), a prompt with arguments, a static resource, a
resource template and completions.

The SDK serves both eras on stdio: the initialize handshake (2024-11-05 ..
2025-11-25) and the stateless 2026-07-28 per-request envelope; the client's
first request decides which. Tools that ask the client for input come in two
styles because the two eras differ:

* `book_table` / `summarize` call `ctx.elicit(...)` / `ctx.session.create_message(...)`
  directly, which sends a server-to-client request mid-call. That only exists
  in the handshake era, so the recording client calls them there only.
* `plan_trip` / `list_workspace_roots` declare their inputs with `Resolve(...)`:
  in the handshake era the SDK sends the same standalone requests, and at
  2026-07-28 it answers with an `input_required` result and resumes when the
  client retries with `inputResponses` (multi round-trip requests).

Usage: python python-server.py   (stdio)
"""

from typing import Annotated

from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample, UserMessage
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    CreateMessageResult,
    ListRootsResult,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

server = MCPServer(
    name="capture-demo-python",
    title="Capture demo server (Python SDK)",
    version="1.0.0",
    instructions="A demo server used to record MCP traffic fixtures.",
)


# ---------------------------------------------------------------- tools


@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class DayForecast(BaseModel):
    day: int = Field(description="Day offset from today")
    condition: str
    high_celsius: float


class Forecast(BaseModel):
    city: str
    days: list[DayForecast]


@server.tool(title="Weather forecast")
def get_forecast(city: str, days: int = 2) -> Forecast:
    """Return a (fabricated, deterministic) forecast; the result is structured content."""
    conditions = ["sunny", "cloudy", "rain"]
    return Forecast(
        city=city,
        days=[DayForecast(day=i, condition=conditions[i % 3], high_celsius=20.5 + i) for i in range(days)],
    )


@server.tool()
def divide(dividend: float, divisor: float) -> float:
    """Divide two numbers; dividing by zero is reported as a tool error (isError)."""
    if divisor == 0:
        raise ToolError("Cannot divide by zero")
    return dividend / divisor


@server.tool()
async def count_down(steps: int, ctx: Context) -> str:
    """Count down, reporting progress and logging each step."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, message=f"step {i + 1} of {steps}")
        await ctx.info(f"counting: {steps - i}")
    return "lift-off"


class BookingPreferences(BaseModel):
    party_size: int = Field(description="Number of guests", ge=1, le=12)
    outdoor: bool = Field(description="Sit outside?")
    time: str = Field(description="Preferred time, HH:MM")


@server.tool()
async def book_table(restaurant: str, ctx: Context) -> str:
    """Book a table, asking the user for details with elicitation (handshake era)."""
    answer = await ctx.elicit(f"Booking details for {restaurant}?", BookingPreferences)
    if answer.action != "accept":
        return f"Booking at {restaurant} {answer.action}ed"
    p = answer.data
    return f"Booked {restaurant} for {p.party_size} at {p.time}{' outside' if p.outdoor else ''}"


@server.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Summarise text with the client's model via sampling/createMessage (handshake era)."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarise: {text}"))],
        max_tokens=64,
        system_prompt="You write one-sentence summaries.",
        temperature=0.2,
    )
    content = result.content
    return content.text if isinstance(content, TextContent) else str(content)


class TripPreferences(BaseModel):
    nights: int = Field(description="How many nights", ge=1, le=30)
    budget: str = Field(description="Budget level: low, medium or high")


def ask_trip_preferences(destination: str):
    return Elicit(f"How would you like to travel to {destination}?", TripPreferences)


def draft_pitch(destination: str):
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=f"One line selling {destination}."))],
        max_tokens=40,
    )


@server.tool()
def plan_trip(
    destination: str,
    prefs: Annotated[TripPreferences, Resolve(ask_trip_preferences)],
    pitch: Annotated[CreateMessageResult, Resolve(draft_pitch)],
) -> str:
    """Plan a trip: asks the user (elicitation) and the client's model (sampling) first."""
    line = pitch.content.text if isinstance(pitch.content, TextContent) else ""
    return f"{prefs.nights} nights in {destination} on a {prefs.budget} budget. {line}"


def fetch_roots():
    return ListRoots()


@server.tool()
def list_workspace_roots(roots: Annotated[ListRootsResult, Resolve(fetch_roots)]) -> list[str]:
    """List the client's roots (roots/list)."""
    return [str(r.uri) for r in roots.roots]


@server.tool()
async def touch_config(ctx: Context) -> str:
    """Mark config://app as changed, so subscribers are notified."""
    await ctx.notify_resource_updated("config://app")
    return "config://app updated"


# -------------------------------------------------------------- prompts


@server.prompt(title="Code review")
def code_review(code: str, language: str = "python") -> list[UserMessage]:
    """Ask for a review of a code snippet."""
    return [
        UserMessage(f"Please review this {language} code:"),
        UserMessage(code),
    ]


# ------------------------------------------------------------ resources


@server.resource("config://app", name="app-config", title="Application config", mime_type="application/json")
def app_config() -> str:
    """The application's configuration."""
    return '{"feature_flags": {"beta": false}, "region": "eu-west-1"}'


USERS = {"ada": "Ada Lovelace", "alan": "Alan Turing", "grace": "Grace Hopper"}


@server.resource("users://{user_id}/profile", name="user-profile", mime_type="text/plain")
def user_profile(user_id: str) -> str:
    """A user's profile."""
    return f"{USERS.get(user_id, 'Unknown user')} ({user_id})"


# ---------------------------------------------------------- completions


@server.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion | None:
    if isinstance(ref, PromptReference) and argument.name == "language":
        values = [v for v in ("python", "rust", "typescript") if v.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)
    if isinstance(ref, ResourceTemplateReference) and argument.name == "user_id":
        values = sorted(u for u in USERS if u.startswith(argument.value))
        return Completion(values=values, total=len(values), has_more=False)
    return None


if __name__ == "__main__":
    server.run()
