"""The stage order, in one place: pipelines are plain lists of stages.

``Pipeline`` checks the declared contract before anything runs: every table a stage reads
is the loaded KG's (``store.schema.PROVIDED_BY_KG``), written by an earlier stage, or named
as already ``available``; and no stage reads a table a later stage writes. It then runs
the stages one after the other. ``generation_stages`` is the one composition of the main
job; ``generate`` runs it, and ``refresh`` runs its own stages (stage the new snapshot and
diff it, swap it in) and then it, as one pipeline. (A test runs every stage on a connection that
records what it touches and holds it to its declaration.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from convkgyarn.errors import PipelineOrderError  # noqa: F401
from convkgyarn.config import GenerateConfig
from convkgyarn.stage import Context, Stage, StageReport
from convkgyarn.store.schema import PROVIDED_BY_KG


def check_order(stages: Sequence[Stage], available: Iterable[str] = ()) -> None:
    """Refuse stages in an order that cannot work (see the module docstring)."""
    for i, stage in enumerate(stages):
        for later in stages[i + 1:]:
            # a refresh's diff reads the snapshot its swap replaces: on purpose
            clash = sorted((set(stage.reads) - set(stage.reads_replaced)) & set(later.writes))
            if clash and later is not stage:
                raise PipelineOrderError(f"{stage.name} reads {', '.join(clash)}, which "
                                         f"{later.name} writes after it")
    produced = set(PROVIDED_BY_KG) | set(available)
    for stage in stages:
        missing = sorted(set(stage.reads) - produced - set(stage.writes))
        if missing:
            raise PipelineOrderError(f"{stage.name} reads {', '.join(missing)}, which no "
                                     "stage before it writes")
        produced |= set(stage.writes)


class Pipeline:
    """Stages run in order, their contract checked first. ``available``: tables an earlier
    command filled (a pipeline that starts after them)."""

    def __init__(self, stages: Sequence[Stage], available: Iterable[str] = ()) -> None:
        check_order(stages, available)
        self.stages = list(stages)

    def run(self, after: Callable[[Stage, StageReport], bool] | None = None,
            failed: Callable[[Stage, Exception], bool] | None = None) -> list[StageReport]:
        """Run the stages in order. ``after`` sees each stage's report and returns True to
        stop there (a refresh whose new snapshot changed nothing); ``failed`` sees a stage's
        exception and returns True when it handled it (the pipeline goes on without that
        stage's report), False to let it stop the pipeline, or raises its own."""
        reports = []
        for stage in self.stages:
            try:
                report = stage.run()
            except Exception as exc:
                if failed is not None and failed(stage, exc):
                    continue
                raise
            reports.append(report)
            if after is not None and after(stage, report):
                break
        return reports


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
    # templates in the languages besides English the configurations ask for
    languages = list(dict.fromkeys([*ctx.config.templates.languages,
                                    *(code for c in configs for code in c.languages)]))
    if any(code != "en" for code in languages):
        from convkgyarn.stages.localise import LocaliseTemplates
        stages.append(LocaliseTemplates(ctx, ctx.config.templates.model_copy(
            update={"languages": languages})))
    if any(c.related for c in configs):
        stages.append(BuildRelated(ctx))
    stages += [AssembleConversations(ctx, c, keep_previous) for c in configs]
    return stages
