"""The AskUserQuestion tool: multiple-choice questions answered through a callback."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, cast

from loopwright.tools.base import ToolBase, ToolContext, ToolResult

NO_CALLBACK = (
    "denied: no ask_user callback configured, so the user cannot be asked. Proceed on your "
    "own best judgement and state the assumption you made, or stop and explain what you "
    "need. (Developers: pass Options(ask_user=callback).)"
)

ASK_DESCRIPTION = """\
Ask the user 1 to 4 multiple-choice questions when you need a decision or clarification.

- Each question has a short header, the question text, 2 to 4 options (label and \
description) and multiSelect (true lets the user pick several).
- The user can also answer in their own words instead of picking an option.
- Do not ask what you can find out yourself by reading the project."""

_OPTION = {
    "type": "object",
    "properties": {"label": {"type": "string"}, "description": {"type": "string"}},
    "required": ["label", "description"],
}
ASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "questions": {
            "type": "array",
            "minItems": 1,
            "maxItems": 4,
            "items": {
                "type": "object",
                "properties": {
                    "question": {"type": "string"},
                    "header": {"type": "string", "description": "A label of a few words."},
                    "options": {"type": "array", "minItems": 2, "maxItems": 4, "items": _OPTION},
                    "multiSelect": {"type": "boolean"},
                },
                "required": ["question", "options"],
            },
        }
    },
    "required": ["questions"],
    "additionalProperties": False,
}


def _check_question(index: int, raw: object) -> dict[str, Any] | str:
    where = f"questions[{index}]"
    if not isinstance(raw, dict):
        return f"{where} must be an object"
    question = cast(dict[str, Any], raw)
    if not isinstance(question.get("question"), str) or not question["question"].strip():
        return f"{where}.question must be a non-empty string"
    options = question.get("options")
    if not isinstance(options, list) or not 2 <= len(cast(list[Any], options)) <= 4:
        return f"{where}.options must be a list of 2 to 4 options"
    for number, option in enumerate(cast(list[Any], options)):
        if not isinstance(option, dict) or not isinstance(option.get("label"), str):
            return f"{where}.options[{number}] needs a string label and description"
    multi = question.get("multiSelect", False)
    if not isinstance(multi, bool):
        return f"{where}.multiSelect must be true or false"
    return {**question, "multiSelect": multi}


def validate_questions(raw: object) -> list[dict[str, Any]] | str:
    if not isinstance(raw, list) or not 1 <= len(cast(list[Any], raw)) <= 4:
        return "questions must be a list of 1 to 4 questions"
    checked: list[dict[str, Any]] = []
    for index, item in enumerate(cast(list[Any], raw)):
        question = _check_question(index, item)
        if isinstance(question, str):
            return question
        checked.append(question)
    return checked


def _render_answers(questions: list[dict[str, Any]], answers: dict[str, Any]) -> str:
    lines = ["The user answered:"]
    for question in questions:
        text = question["question"]
        answer = answers.get(text, answers.get(question.get("header", ""), "(no answer)"))
        if isinstance(answer, list):
            answer = ", ".join(str(a) for a in cast(list[Any], answer))
        lines.append(f'- "{text}" → {answer}')
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class AskUserQuestionTool(ToolBase):
    name: str = "AskUserQuestion"
    description: str = ASK_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: ASK_SCHEMA)
    read_only: bool = False

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        questions = validate_questions(input.get("questions"))
        if isinstance(questions, str):
            return ToolResult.error(questions)
        callback = ctx.services.ask_user
        if callback is None:
            return ToolResult.error(NO_CALLBACK)
        try:
            answers = callback(questions)
            if inspect.isawaitable(answers):
                answers = await answers
        except Exception as exc:  # the UI failing is reported, never raised into the loop
            return ToolResult.error(f"asking the user failed: {exc}")
        if not isinstance(answers, dict):
            return ToolResult.error(
                "the ask_user callback returned no answers; the user may have dismissed the "
                "question — proceed on your best judgement or stop and explain"
            )
        return ToolResult(_render_answers(questions, answers))
