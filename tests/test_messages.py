"""Every message and block survives a JSON round trip unchanged."""

import json
import uuid

import pytest

from loopwright.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
    message_from_dict,
    new_uuid,
)

EXAMPLES: list[Message] = [
    SystemMessage("init", {"session_id": "s1", "tools": ["Read"], "nested": {"a": [1, 2]}}),
    AssistantMessage(
        [
            ThinkingBlock("hmm", signature="sig", provider_data={"id": "rs_1"}),
            TextBlock("hello"),
            ToolUseBlock("t1", "Read", {"file_path": "/x"}),
            ToolUseBlock("t2", "Bash", {}, raw_input="{not json"),
        ],
        model="m",
        usage=Usage(1, 2, 3, 4),
        stop_reason="tool_use",
        message_id="msg_1",
        parent_tool_use_id="p1",
    ),
    UserMessage("plain prompt"),
    UserMessage(
        [
            ToolResultBlock("t1", "file text"),
            ToolResultBlock("t2", [TextBlock("a"), ImageBlock("image/png", "aGk=")], is_error=True),
        ],
        parent_tool_use_id="p1",
    ),
    StreamEvent({"type": "text_delta", "text": "he"}, "s1", None, {"raw": True}),
    ResultMessage(
        subtype="success",
        is_error=False,
        num_turns=3,
        session_id="s1",
        duration_ms=10,
        duration_api_ms=5,
        total_cost_usd=None,
        usage=Usage(5, 6),
        result="done",
        structured_output={"k": [1]},
        model_usage={"m": {"input_tokens": 5}},
        stop_reason="end_turn",
        permission_denials=[{"tool_name": "Bash"}],
        errors=["e"],
    ),
]


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.type)
def test_message_round_trips_through_json(message: Message) -> None:
    encoded = json.dumps(message.to_dict())
    decoded = message_from_dict(json.loads(encoded))
    assert decoded == message
    assert type(decoded).from_dict(json.loads(encoded)) == message


def test_from_dict_of_the_wrong_class_is_refused() -> None:
    with pytest.raises(ValueError, match="expected a UserMessage"):
        UserMessage.from_dict(SystemMessage("init").to_dict())


def test_unknown_type_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown message type 'bogus'"):
        message_from_dict({"type": "bogus"})


def test_usage_adds_up() -> None:
    total = Usage(1, 2, 3, 4) + Usage(10, 20, 30, 40)
    assert total == Usage(11, 22, 33, 44)
    assert total.total_tokens == 110
    assert total.context_tokens == 11 + 33 + 44


def test_new_uuid_is_a_random_version_4_uuid_as_uuid4_spells_it() -> None:
    ids = {new_uuid() for _ in range(200)}
    assert len(ids) == 200
    for text in ids:
        parsed = uuid.UUID(text)
        assert str(parsed) == text
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122
