"""Read-only inspection of a project: what the KG holds, what each stage decided and
dropped, the stored conversations and the evaluation's scores. ``Project`` has these methods
(it inherits them); none writes, so all of them work on a project opened with
``write=False`` (whose lock readers share).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from convkgyarn.errors import UserError


class Inspection:
    """The read-only half of ``Project`` (it needs ``con``, ``config``, ``db`` and ``say``)."""

    def kg_stats(self) -> dict[str, Any]:
        """Counts of the loaded KG: entities, statements, types, label coverage."""
        from convkgyarn.kg.snapshot import require_complete_loads
        from convkgyarn.kg.stats import kg_stats

        require_complete_loads(self.con)
        return kg_stats(self.con)

    def label_coverage(self) -> dict[str, Any]:
        """How many entities and properties have an English label."""
        from convkgyarn.kg.snapshot import label_coverage

        return label_coverage(self.con)

    def rejects(self, limit: int = 50) -> list[tuple]:
        """Dump lines (and values) the loader rejected, with the reason."""
        from convkgyarn.kg.snapshot import reject_rows

        return reject_rows(self.con, limit)

    def drops(self, stage: str | None = None, *, items: bool = False) -> list[tuple]:
        """What each stage left out, counted by stage and reason (with ``items``, also how
        many distinct items and runs: ``kg.snapshot.drop_counts``)."""
        from convkgyarn.kg.snapshot import drop_counts

        return drop_counts(self.con, stage, items=items)

    def drop_items(self, stage: str | None = None, *, item: str | None = None,
                   reason: str | None = None, limit: int = 50) -> tuple[list[tuple], int]:
        """The items left out, each with its reason and detail (of one item, or one reason:
        ``kg.snapshot.drop_items``), and how many matched."""
        from convkgyarn.kg.snapshot import drop_items

        return drop_items(self.con, stage, item=item, reason=reason, limit=limit)

    def type_predicates(self, type_id: str) -> list[tuple]:
        """F(t): every property the type's entities use, most used first."""
        from convkgyarn.stages.predicates import type_predicate_rows

        return type_predicate_rows(self.con, type_id)

    def selection(self, type_id: str) -> list[tuple]:
        """G(t): the properties (and qualifiers) selected for a type, by whom."""
        from convkgyarn.stages.predicates import selection_rows

        return selection_rows(self.con, type_id)

    def templates(self, type_id: str, interaction: str | None = None) -> list[tuple]:
        """The stored templates of a type (one interaction, or all)."""
        from convkgyarn.stages.templates import template_rows

        return [r for r in template_rows(self.con, type_id) if interaction in (None, r[2])]

    def related(self, limit: int = 50) -> list[tuple]:
        """Each popular person's related entity and the link that explains it."""
        from convkgyarn.stages.related import related_rows

        return related_rows(self.con, limit)

    def types(self, only_selected: bool = False) -> list[tuple]:
        """The type decisions: (type, label, entities, selected, reason, by)."""
        from convkgyarn.stages.types import selected_type_rows

        return selected_type_rows(self.con, only_selected)

    def quality(self, runs: Sequence[str] | None = None) -> dict[str, Any]:
        """Quality figures of stored runs (default: the current ones)."""
        from convkgyarn.quality import quality

        runs = list(runs or self.current_runs())
        if not runs:
            raise UserError("no conversations yet; run `convkgyarn generate` first")
        return quality(self.con, runs)

    def current_runs(self) -> list[str]:
        """The current generation run of each configuration."""
        from convkgyarn.conversations import current_runs

        return current_runs(self.con)

    def records(self, runs: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """The stored conversations of ``runs`` (default: the current ones) as export records."""
        from convkgyarn.export import records

        return records(self.con, self._readable_runs(runs))

    def _readable_runs(self, runs: Sequence[str] | None) -> list[str]:
        """The runs asked for (default: the current one of each configuration), checked."""
        from convkgyarn.conversations import run_exists

        if runs:
            missing = [r for r in runs if not run_exists(self.con, r)]
            if missing:
                raise UserError(f"no generation run {', '.join(missing)} in {self.db}")
        from convkgyarn.conversations import stale_configurations

        runs = list(runs or self.current_runs())
        if not runs:
            raise UserError("no conversations yet; run `convkgyarn generate` first")
        stale = stale_configurations(self.con, runs)
        if stale:
            self.say(f"note: the {', '.join(stale)} conversations were made from an earlier "
                     "KG snapshot; run `convkgyarn generate` again to make them from the "
                     "current one")
        return runs

    def summary(self, recs: list[dict[str, Any]]) -> dict[str, Any]:
        """Counts of the records: conversations, turns, types, properties, LLM use."""
        from convkgyarn.export import summary

        return summary(self.con, recs, self.config.llm)

    def metrics(self) -> list[dict[str, Any]]:
        """Accuracy per model, configuration and language, with bootstrap intervals."""
        from convkgyarn.stages.evaluate import metrics

        return metrics(self.con, self.config.evaluate.bootstrap)

    def effects(self) -> list[dict[str, Any]]:
        """Each phenomenon's paired effect against its base, per model and language."""
        from convkgyarn.stages.evaluate import paired_effects

        return paired_effects(self.con, self.config.evaluate.bootstrap,
                              self.config.evaluate.seed)

    def language_effects(self) -> list[dict[str, Any]]:
        """Each language's paired effect against English over the same plans, per model and
        configuration (per turn and per conversation)."""
        from convkgyarn.stages.evaluate import language_effects

        return language_effects(self.con, self.config.evaluate.bootstrap,
                                self.config.evaluate.seed)
