"""A small MCP server built with the official Python SDK (`mcp`), probed live by the tests.

It has a little of everything a description lists: two tools (one with structured
output), a static resource, a resource template and a prompt with arguments. The SDK
serves both eras on stdio, so one process answers either the initialize handshake
(2024-11-05 .. 2025-11-25) or the stateless 2026-07-28 envelope.

Usage: python python-server.py   (stdio)
"""

from mcp.server.mcpserver import MCPServer, UserMessage
from mcp_types import ToolAnnotations
from pydantic import BaseModel

server = MCPServer(
    name="live-demo-python",
    title="Live probe demo server (Python SDK)",
    version="1.0.0",
    instructions="A demo server that mcpdesc probes in its tests.",
)


@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Greeting(BaseModel):
    text: str
    language: str


@server.tool(title="Greet someone")
def greet(name: str, language: str = "en") -> Greeting:
    """Greet someone; the result is structured content."""
    words = {"en": "Hello", "pt": "Olá", "de": "Hallo"}
    return Greeting(text=f"{words.get(language, 'Hello')}, {name}!", language=language)


@server.resource("config://app", name="app-config", title="Application config", mime_type="application/json")
def app_config() -> str:
    """The application's configuration."""
    return '{"region": "eu-west-1"}'


@server.resource("users://{user_id}/profile", name="user-profile", mime_type="text/plain")
def user_profile(user_id: str) -> str:
    """A user's profile."""
    return f"Profile of {user_id}"


@server.prompt(title="Code review")
def code_review(code: str, language: str = "python") -> list[UserMessage]:
    """Ask for a review of a code snippet."""
    return [UserMessage(f"Please review this {language} code:"), UserMessage(code)]


if __name__ == "__main__":
    server.run()
