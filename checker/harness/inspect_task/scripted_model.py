"""The scripted model as an Inspect model provider: `--model driftboard/scripted` (needs the `inspect` extra).

Registered by `driftboard._registry` (Inspect loads it when a `driftboard/...` name is asked for)
for both tasks; its replies are `checker.harness.inspect_task.scripted.reply`, its behaviour the
model argument `-M behaviour=follow|bind|abandon|mute`. On the constraint task,
`-M behaviour=perfect|forgetful|contradicting -M problems=DIR` answers from the gold solutions of
the problem set in DIR (`checker.harness.inspect_task.scripted_constraint`). It never touches the
network and reports its own token usage (ceil(characters / 4)), so Inspect loads no tokenizer.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

from checker.harness.inspect_task.scripted import BEHAVIOURS, reply, usage
from checker.harness.inspect_task.scripted_constraint import CONSTRAINT_BEHAVIOURS, constraint_reply
from checker.harness.inspect_task.task import TaskArgumentError

MODEL_NAME = "scripted"
"""The one model of the provider: `driftboard/scripted`."""


@modelapi(name="driftboard")
class ScriptedModel(ModelAPI):
    """The deterministic scripted model (`driftboard/scripted`)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_name != MODEL_NAME:
            raise ValueError(f"the driftboard provider has one model, driftboard/{MODEL_NAME} (not {model_name!r})")
        self.behaviour = str(model_args.get("behaviour", "follow"))
        self.problems = str(model_args.get("problems", ""))
        if self.behaviour not in BEHAVIOURS + CONSTRAINT_BEHAVIOURS:
            raise TaskArgumentError(f"-M behaviour={self.behaviour}: not one of {', '.join(BEHAVIOURS + CONSTRAINT_BEHAVIOURS)}")
        if self.behaviour in CONSTRAINT_BEHAVIOURS and not self.problems:
            raise TaskArgumentError(f"-M behaviour={self.behaviour} answers from a problem set's gold solutions: give "
                             "-M problems=DIR, the folder of -T problems=DIR")

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        """The scripted reply to the conversation, with its usage."""
        messages: list[tuple[str, str]] = [(str(m.role), m.text) for m in input]
        if self.behaviour in CONSTRAINT_BEHAVIOURS:
            text = constraint_reply(self.behaviour, messages, self.problems)
        else:
            text = reply(self.behaviour, messages)
        out = ModelOutput.from_content(model=f"driftboard/{self.model_name}", content=text)
        tokens_in, tokens_out = usage(messages, text)
        out.usage = ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out)
        return out


__all__ = ["MODEL_NAME", "ScriptedModel"]
