"""The stage order, in one place: pipelines are plain lists of stages.

``Pipeline`` checks that no stage reads a table a later stage writes (the order is
right) and runs the stages one after the other. ``generation_stages`` is the one
composition of the main job; ``generate`` and ``refresh`` both use it.
"""

from __future__ import annotations

from collections.abc import Sequence

from convkgyarn.config import GenerateConfig
from convkgyarn.stage import Context, Stage, StageReport


class PipelineOrderError(ValueError):
    """A stage placed before the stage that writes what it reads (a programming error)."""


def check_order(stages: Sequence[Stage]) -> None:
    for i, stage in enumerate(stages):
        for later in stages[i + 1:]:
            clash = sorted(set(stage.reads) & set(later.writes))
            if clash and later is not stage:
                raise PipelineOrderError(f"{stage.name} reads {', '.join(clash)}, which "
                                         f"{later.name} writes after it")


class Pipeline:
    def __init__(self, stages: Sequence[Stage]) -> None:
        check_order(stages)
        self.stages = list(stages)

    def run(self) -> list[StageReport]:
        return [stage.run() for stage in self.stages]


def generation_stages(ctx: Context, configs: Sequence[GenerateConfig],
                      keep_previous: bool = False) -> list[Stage]:
    """From a loaded KG to stored conversations, for each configuration."""
    from convkgyarn.stages.assemble import AssembleConversations
    from convkgyarn.stages.predicates import ExtractPredicates, SelectPredicates
    from convkgyarn.stages.related import BuildRelated
    from convkgyarn.stages.templates import GenerateTemplates
    from convkgyarn.stages.types import SelectTypes

    # types asked for by name are wanted even where the rules would leave them out
    asked = sorted({t for c in configs for t in c.types})
    types_cfg = ctx.config.types.model_copy(
        update={"include": sorted(set(ctx.config.types.include) | set(asked))})
    stages: list[Stage] = [ExtractPredicates(ctx), SelectTypes(ctx, types_cfg),
                           SelectPredicates(ctx), GenerateTemplates(ctx)]
    if any(c.related for c in configs):
        stages.append(BuildRelated(ctx))
    stages += [AssembleConversations(ctx, c, keep_previous) for c in configs]
    return stages
