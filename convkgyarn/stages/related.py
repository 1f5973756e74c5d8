"""Related entities R(e): for each popular person, another entity of the KG that a reader of
the conversation would accept as related, together with the link that says why.

The paper introduces a related entity in a conversation about a person: "Pedro Pascal", then
"Bella Ramsey", his co-star in The Last of Us. What makes such a pair defensible is a link a
person recognises, so every pair this stage stores has one, recorded in
``related_entities.via_id`` / ``via_path``:

- a **direct link** between the two (spouse, child, doctoral advisor, influenced by ...):
  ``via_id`` is NULL and ``via_path`` the property, ``^P40`` when the statement goes from the
  related entity to the person (SPARQL's inverse path);
- or a **shared item** both are linked to (a film both are cast members of, a band both
  belong to, an office both held): ``via_id`` is the item and ``via_path`` the two legs,
  ``^P161/P161`` = person <-cast member- item -cast member-> related entity.

Only the properties of ``CONNECTING_PROPERTIES`` connect: ties between people (family,
teachers, works made together, groups, offices) at weight 1, and shared honours and
institutions (awards, schools, employers, parties) at 0.5. Classifying values (occupation,
citizenship, genre, birthplace, language, sex ...) never connect: two actors, two Americans
or two people born in London share a category, not a tie. A person with no connected
candidate, or only ones scoring under ``min_score`` (linked through items many entities
share), gets no related entity, and that is a drop with its reason.

Candidates are ranked by one of three methods (``RelatedConfig.method``):

- ``shared`` (default): the sum over connecting items of ``weight / ln(degree)`` (Adamic and
  Adar, 2003: an item few entities link to says more than a hub), a direct link counting
  ``2 x weight`` (more than any shared item, at most ``1 / ln 2 = 1.44``); ties go to the
  better-known candidate (sitelinks). One SQL pass per chunk of people: seconds on every KG
  measured (CoDEx-M's 13,223 people included).
- ``complex``: ComplEx embeddings (Trouillon et al., 2016) trained in plain torch with
  reciprocal relations, 1-vs-all cross-entropy and N3 (Lacroix et al., 2018) on the KG's
  item-to-item facts, within a time budget and stopped early when a held-out check of
  facts stops improving; cosine similarity re-ranks the ``rerank_top`` best connected
  candidates.
- ``pbg``: published PyTorch-BigGraph Wikidata vectors (TSV: entity, then floats) re-rank
  them the same way, for full-Wikidata scale where training is out of reach.

Embeddings only order candidates the KG can explain: on CoDEx-M, 55-89% of the people an
embedding put nearest shared no connecting link with the person at all, and candidates
with a shared-link score under ``min_score`` were no likelier to be borne out by held-out
facts than chance (``benchmarks/bench_related.py``). Cosine is taken over L2-normalised
vectors: with raw inner products, high-degree people (large norms) become everyone's
neighbour.

Progress goes to an optional ``progress`` hook (``StepProgress`` events): the CLI shows a
live bar in a terminal and one line per step otherwise.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from convkgyarn.errors import UserError
from convkgyarn.progress import ProgressHook, StepProgress
from convkgyarn.stage import Stage, code_version, utcnow
from convkgyarn.store import insert_rows, transaction

TIE, HONOUR = 1.0, 0.5
CONNECTING_PROPERTIES: dict[str, float] = {
    # family and partners
    "P26": TIE, "P451": TIE, "P40": TIE, "P22": TIE, "P25": TIE, "P3373": TIE, "P1038": TIE,
    "P3448": TIE, "P1290": TIE, "P53": TIE,
    # teachers, students, influences
    "P184": TIE, "P185": TIE, "P1066": TIE, "P802": TIE, "P737": TIE,
    # works made together (cast, crew, authors, performers) and the works themselves
    "P161": TIE, "P725": TIE, "P175": TIE, "P86": TIE, "P57": TIE, "P58": TIE, "P162": TIE,
    "P1431": TIE, "P50": TIE, "P170": TIE, "P676": TIE, "P87": TIE, "P344": TIE,
    "P1040": TIE, "P2554": TIE, "P98": TIE, "P655": TIE, "P110": TIE, "P800": TIE,
    "P1441": TIE, "P674": TIE, "P710": TIE, "P1877": TIE, "P1809": TIE, "P2515": TIE,
    "P371": TIE,
    # groups, teams, organisations they founded, led or own
    "P463": TIE, "P527": TIE, "P361": TIE, "P54": TIE, "P6087": TIE, "P286": TIE,
    "P112": TIE, "P488": TIE, "P169": TIE, "P1037": TIE, "P3342": TIE, "P1327": TIE,
    "P127": TIE, "P1830": TIE,
    # offices and succession
    "P39": TIE, "P6": TIE, "P35": TIE, "P1365": TIE, "P1366": TIE,
    # shared honours and institutions: recognisable, but they gather many people
    "P166": HONOUR, "P1411": HONOUR, "P69": HONOUR, "P108": HONOUR, "P102": HONOUR,
    "P1344": HONOUR, "P793": HONOUR, "P3602": HONOUR, "P803": HONOUR, "P611": HONOUR,
    "P264": HONOUR,
}
DIRECT = 2.0  # a direct link's factor: more than any shared item (1 / ln 2 = 1.44 at most)
PEOPLE_PER_QUERY = 500
MIN_TRIPLES_FOR_CHECK = 1000  # fewer facts: no held-out check (too few to hold any out)




@dataclass
class TrainResult:
    entity_vectors: np.ndarray  # (n_entities, 2 * rank): real parts then imaginary parts
    epochs: int
    seconds: float
    final_loss: float
    model: Any = None  # the trained torch module, for scoring (benchmarks)
    stopped: str = "epochs"  # "epochs", "time budget" or "held-out check"
    held_out_mrr: float | None = None  # the best check, whose vectors are returned


def train_complex(triples: np.ndarray, n_entities: int, n_relations: int, rank: int = 64,
                  epochs: int = 50, batch_size: int = 1000, lr: float = 0.1, reg: float = 5e-3,
                  init: float = 1e-3, seed: int = 0, time_budget: float | None = None,
                  threads: int | None = None, on_epoch=None, held_out: np.ndarray | None = None,
                  patience: int = 3, clock: Callable[[], float] = time.perf_counter
                  ) -> TrainResult:
    """ComplEx with reciprocal relations, 1-vs-all cross-entropy, N3 and Adagrad.

    ``triples`` is an int array (n, 3) of (head, relation, tail). Training stops after
    ``epochs``, or as soon as ``time_budget`` seconds (by ``clock``) have passed, checked
    after every batch so one long epoch cannot overrun it. With ``held_out`` facts (not in
    ``triples``), each epoch ends with their filtered MRR; training stops after ``patience``
    epochs without a better one and returns the vectors of the best check.
    ``on_epoch(epoch, model)`` may report or evaluate.
    """
    import torch

    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = ComplEx(n_entities, 2 * n_relations, rank, init)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=lr)
    data = torch.as_tensor(triples, dtype=torch.long)
    # reciprocal relations: (t, r + R, h) for every (h, r, t)
    data = torch.cat([data, torch.stack([data[:, 2], data[:, 1] + n_relations, data[:, 0]], 1)])
    check = known = None
    if held_out is not None and len(held_out):
        check = np.concatenate([held_out, np.stack(
            [held_out[:, 2], held_out[:, 1] + n_relations, held_out[:, 0]], 1)])
        known = known_answers(np.concatenate([triples, held_out]), n_relations)
    start = clock()
    loss_value, epoch, stopped = math.nan, 0, "epochs"
    best_mrr, best_vectors, worse = -1.0, None, 0
    for epoch in range(1, epochs + 1):
        perm = data[torch.randperm(len(data), generator=gen)]
        total, seen = 0.0, 0
        for i in range(0, len(perm), batch_size):
            batch = perm[i:i + batch_size]
            scores, factors = model.forward(batch[:, 0], batch[:, 1])
            loss = torch.nn.functional.cross_entropy(scores, batch[:, 2])
            loss = loss + reg * sum(torch.sum(torch.abs(f) ** 3) for f in factors) / len(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
            seen += len(batch)
            if time_budget and clock() - start > time_budget:
                stopped = "time budget"
                break
        loss_value = total / max(seen, 1)
        if check is not None:
            mrr = float(np.mean(1.0 / filtered_ranks(model, check, known)))
            if mrr > best_mrr:
                best_mrr, worse = mrr, 0
                with torch.no_grad():
                    best_vectors = _vectors(model)
            else:
                worse += 1
        if on_epoch:
            on_epoch(epoch, model)
        if stopped == "epochs" and time_budget and clock() - start > time_budget:
            stopped = "time budget"
        if stopped != "epochs":
            break
        if check is not None and worse >= patience:
            stopped = "held-out check"
            break
    with torch.no_grad():
        vectors = best_vectors if best_vectors is not None else _vectors(model)
    return TrainResult(vectors, epoch, clock() - start, loss_value, model, stopped,
                       best_mrr if check is not None else None)


def _vectors(model) -> np.ndarray:
    import torch

    return torch.cat([model.ent_re.weight, model.ent_im.weight], 1).detach().numpy().copy()


def known_answers(triples: np.ndarray, n_relations: int) -> dict[tuple[int, int], set[int]]:
    """(head, relation) -> every known tail, reciprocal relations included (for filtering)."""
    known: dict[tuple[int, int], set[int]] = defaultdict(set)
    for h, r, t in triples.tolist():
        known[(h, r)].add(t)
        known[(t, r + n_relations)].add(h)
    return known


def _complex_module():
    import torch

    class _ComplEx(torch.nn.Module):
        def __init__(self, n_entities: int, n_relations: int, rank: int, init: float) -> None:
            super().__init__()
            self.ent_re = torch.nn.Embedding(n_entities, rank)
            self.ent_im = torch.nn.Embedding(n_entities, rank)
            self.rel_re = torch.nn.Embedding(n_relations, rank)
            self.rel_im = torch.nn.Embedding(n_relations, rank)
            for emb in (self.ent_re, self.ent_im, self.rel_re, self.rel_im):
                emb.weight.data *= init

        def query(self, heads, relations):
            h_re, h_im = self.ent_re(heads), self.ent_im(heads)
            r_re, r_im = self.rel_re(relations), self.rel_im(relations)
            q_re = h_re * r_re - h_im * r_im
            q_im = h_re * r_im + h_im * r_re
            return q_re, q_im, (torch.sqrt(h_re ** 2 + h_im ** 2),
                                torch.sqrt(r_re ** 2 + r_im ** 2))

        def forward(self, heads, relations):
            q_re, q_im, (h, r) = self.query(heads, relations)
            scores = q_re @ self.ent_re.weight.T + q_im @ self.ent_im.weight.T
            return scores, (h, r)

        def score_all(self, heads, relations):
            q_re, q_im, _ = self.query(heads, relations)
            return q_re @ self.ent_re.weight.T + q_im @ self.ent_im.weight.T

    return _ComplEx


def ComplEx(*args):  # noqa: N802 - a class, built lazily so torch loads only when needed
    return _complex_module()(*args)


def filtered_ranks(model, queries: np.ndarray, known: dict[tuple[int, int], set[int]],
                   batch: int = 500) -> np.ndarray:
    """Filtered rank of each query's answer: other known answers do not count against it."""
    import torch

    ranks = []
    with torch.no_grad():
        for i in range(0, len(queries), batch):
            q = torch.as_tensor(queries[i:i + batch], dtype=torch.long)
            scores = model.score_all(q[:, 0], q[:, 1])
            target = scores[torch.arange(len(q)), q[:, 2]].clone()
            for j, (h, r, t) in enumerate(queries[i:i + batch]):
                others = [x for x in known.get((int(h), int(r)), ()) if x != t]
                if others:
                    scores[j, others] = -float("inf")
            ranks.append((scores > target[:, None]).sum(1).numpy() + 1)
    return np.concatenate(ranks) if ranks else np.zeros(0)


def load_pbg_tsv(path: Path, wanted: set[str]) -> tuple[list[str], np.ndarray]:
    """Published PyTorch-BigGraph Wikidata vectors: keep only the entities we need (streamed).
    A line that is not an entity followed by floats is a UserError naming the line."""
    ids, rows = [], []
    pattern = re.compile(r"(Q\d+)")
    opener = __import__("gzip").open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for line_no, line in enumerate(fh, 1):
                key, _, rest = line.partition("\t")
                m = pattern.search(key)
                if not m or m.group(1) not in wanted:
                    continue
                try:
                    rows.append(np.array(rest.split("\t"), dtype=np.float32))
                except ValueError:
                    raise UserError(f"{path}:{line_no}: not an entity followed by "
                                    "tab-separated floats") from None
                if rows[0].shape != rows[-1].shape:
                    raise UserError(f"{path}:{line_no}: {rows[-1].shape[0]} floats where "
                                    f"earlier lines have {rows[0].shape[0]}")
                ids.append(m.group(1))
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise UserError(f"{path}: cannot read the vectors ({exc})") from None
    if not rows:
        return [], np.zeros((0, 0), dtype=np.float32)
    return ids, np.vstack(rows)


def nearest_neighbours(vectors: np.ndarray, queries: np.ndarray,
                       k: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Inner-product search with faiss over L2-normalised vectors (cosine similarity)."""
    import faiss

    base = np.ascontiguousarray(vectors, dtype=np.float32)
    faiss.normalize_L2(base)
    q = np.ascontiguousarray(queries, dtype=np.float32)
    faiss.normalize_L2(q)
    index = faiss.IndexFlatIP(base.shape[1])
    index.add(base)
    return index.search(q, k)


# The connected candidates of a chunk of people, best first by the shared-link score, each
# pair with the link that explains it best (a tie before an honour, then the strongest, a
# direct link first on a tie): one row per (person, candidate) among each person's ``top``
# best. Reads the temporary tables BuildRelated.prepare makes.
CANDIDATES_SQL = """
WITH chunk AS (SELECT unnest(?::VARCHAR[]) AS p),
links AS (
    SELECT a.e AS p, b.e AS r, a.x AS via,
           CASE WHEN a.inv THEN '^' ELSE '' END || a.property_id || '/'
           || CASE WHEN b.inv THEN '' ELSE '^' END || b.property_id AS path,
           least(a.weight, b.weight) AS tier, least(a.weight, b.weight) / ln(v.degree) AS w
    FROM chunk JOIN rel_adj a ON a.e = chunk.p
    JOIN rel_via v ON v.x = a.x
    JOIN rel_adj b ON b.x = a.x AND b.e <> a.e
    JOIN rel_cand c ON c.id = b.e
    UNION ALL
    SELECT a.e, a.x, NULL, CASE WHEN a.inv THEN '^' ELSE '' END || a.property_id,
           a.weight, a.weight * {direct}
    FROM chunk JOIN rel_adj a ON a.e = chunk.p JOIN rel_cand c ON c.id = a.x),
per_item AS (  -- an item counts once per pair, by its strongest link
    SELECT * FROM links
    QUALIFY row_number() OVER (PARTITION BY p, r, via ORDER BY w DESC, path) = 1),
pairs AS (
    SELECT p, r, sum(w) AS score,
           first(via ORDER BY tier DESC, w DESC, via NULLS FIRST) AS via,
           first(path ORDER BY tier DESC, w DESC, via NULLS FIRST) AS path
    FROM per_item GROUP BY p, r)
SELECT pairs.p, pairs.r, pairs.score, pairs.via, pairs.path
FROM pairs JOIN rel_cand c ON c.id = pairs.r
QUALIFY row_number() OVER (PARTITION BY pairs.p ORDER BY pairs.score DESC,
                           c.sitelinks DESC NULLS LAST, pairs.r) <= ?
ORDER BY pairs.p, pairs.score DESC, c.sitelinks DESC NULLS LAST, pairs.r
""".replace("{direct}", repr(DIRECT))

TEMP_TABLES = ("rel_conn", "rel_adj", "rel_via", "rel_cand")


class BuildRelated(Stage):
    """Each popular person's related entity, with the link that explains it (see the module
    docstring): ``related_entities`` is replaced whole, in one transaction."""

    name = "related.build"
    reads = ("statements", "entities", "entity_types", "facts", "labels")
    writes = ("embedding_runs", "related_entities")

    def __init__(self, ctx, config=None, progress: ProgressHook | None = None) -> None:
        super().__init__(ctx, config)
        self.out_dir = ctx.work_dir / "embeddings"
        if progress is not None:  # a hook of its own, else the context's
            self.report_progress = progress

    def default_config(self, ctx):
        return ctx.config.related

    # -- the KG side: connecting links, candidates, popular people -------------------------
    def prepare(self) -> list[str]:
        """Temporary tables of the connecting links (both directions), the items that may
        connect (labelled, at most ``max_degree`` entities), and the candidates; returns the
        popular people, sorted."""
        cfg = self.config
        con = self.con
        step = "reading connecting links"
        self.report_progress(StepProgress(step, 0, None, "links"))
        con.execute("CREATE OR REPLACE TEMP TABLE rel_conn AS SELECT unnest(?::VARCHAR[]) "
                    "AS property_id, unnest(?::DOUBLE[]) AS weight",
                    [list(CONNECTING_PROPERTIES), list(CONNECTING_PROPERTIES.values())])
        con.execute("""
            CREATE OR REPLACE TEMP TABLE rel_adj AS
            WITH facts AS (
                SELECT s.entity_id, s.property_id, s.value_id, c.weight
                FROM statements s JOIN rel_conn c ON c.property_id = s.property_id
                WHERE s.truthy AND s.value_id LIKE 'Q%' AND s.value_id <> s.entity_id)
            SELECT DISTINCT entity_id AS e, value_id AS x, property_id, false AS inv, weight
            FROM facts
            UNION
            SELECT DISTINCT value_id, entity_id, property_id, true, weight FROM facts""")
        con.execute("""
            CREATE OR REPLACE TEMP TABLE rel_via AS
            SELECT x, count(DISTINCT e) AS degree FROM rel_adj GROUP BY x
            HAVING count(DISTINCT e) BETWEEN 2 AND ?""", [cfg.max_degree])
        con.execute("DELETE FROM rel_via WHERE x NOT IN (SELECT id FROM labels "
                    "WHERE label IS NOT NULL AND label <> '')")
        typed = ("SELECT entity_id FROM entity_types WHERE type_id IN (SELECT unnest(?))"
                 if cfg.related_types else "SELECT entity_id FROM entity_types")
        con.execute(f"""
            CREATE OR REPLACE TEMP TABLE rel_cand AS
            SELECT id, max(sitelinks) AS sitelinks FROM entities
            WHERE label IS NOT NULL AND label <> '' AND id IN ({typed}) GROUP BY id""",
                    [cfg.related_types] if cfg.related_types else [])
        links = con.execute("SELECT count(*) FROM rel_adj").fetchone()[0] // 2
        self.report_progress(StepProgress(step, links, None, "links", finished=True))
        return [r[0] for r in con.execute(
            "SELECT DISTINCT e.id FROM entities e WHERE e.sitelinks >= ? AND e.id IN "
            "(SELECT entity_id FROM entity_types WHERE type_id = 'Q5') ORDER BY e.id",
            [cfg.min_sitelinks]).fetchall()]

    def candidates(self, people: list[str], top: int) -> dict[str, list[tuple]]:
        """person -> [(candidate, shared score, via item, via path)], best first; people with
        no connected candidate are absent. Reports progress per chunk of people."""
        out: dict[str, list[tuple]] = defaultdict(list)
        step = "finding connected people" if self.config.related_types == ["Q5"] \
            else "finding connected entities"
        self.report_progress(StepProgress(step, 0, len(people), "people"))
        for i in range(0, len(people), PEOPLE_PER_QUERY):
            chunk = people[i:i + PEOPLE_PER_QUERY]
            for p, r, score, via, path in self.con.execute(CANDIDATES_SQL,
                                                           [chunk, top]).fetchall():
                out[p].append((r, score, via, path))
            self.report_progress(StepProgress(step, i + len(chunk), len(people), "people"))
        self.report_progress(StepProgress(step, len(people), len(people), "people", finished=True,
                                   note=f"{len(out):,} with a connection"))
        return out

    # -- embeddings -------------------------------------------------------------------------
    def triples(self) -> tuple[list[str], list[str], np.ndarray]:
        rows = self.con.execute(
            "SELECT entity_id, property_id, value_id FROM statements WHERE truthy AND "
            "value_id LIKE 'Q%' AND value_id <> entity_id ORDER BY 1, 2, 3").fetchall()
        entities = sorted({r[0] for r in rows} | {r[2] for r in rows})
        relations = sorted({r[1] for r in rows})
        e_index = {e: i for i, e in enumerate(entities)}
        r_index = {r: i for i, r in enumerate(relations)}
        arr = np.array([(e_index[h], r_index[r], e_index[t]) for h, r, t in rows], dtype=np.int64)
        return entities, relations, arr.reshape(-1, 3)

    def split_held_out(self, triples: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Hold out up to 2,000 facts (5%) for the early-stopping check, only facts whose
        head and tail both keep other facts (an entity seen in no training fact cannot be
        ranked). Small KGs (under 1,000 facts) get no check."""
        if len(triples) < MIN_TRIPLES_FOR_CHECK:
            return triples, None
        rng = np.random.default_rng(self.config.seed)
        n = min(2000, len(triples) // 20)
        order = rng.permutation(len(triples))
        counts = np.bincount(triples[:, [0, 2]].ravel())
        held: list[int] = []
        for i in order:
            h, t = triples[i, 0], triples[i, 2]
            if counts[h] > 1 and counts[t] > 1:
                counts[h] -= 1
                counts[t] -= 1
                held.append(i)
                if len(held) == n:
                    break
        mask = np.ones(len(triples), dtype=bool)
        mask[held] = False
        return triples[mask], triples[~mask]

    def embeddings(self, method: str, wanted: set[str]) -> tuple[list[str], np.ndarray,
                                                                 dict[str, Any]]:
        """Entity ids and their vectors (trained, reused or loaded), with counters. Published
        vectors are read for ``wanted`` only (the people and their connected candidates): a
        full-Wikidata file holds ~78M vectors, of which a run needs a few per person."""
        cfg = self.config
        if method == "pbg":
            path = Path(cfg.pretrained)
            if not path.is_file():
                raise UserError(f"{path}: no such file (related.pretrained)")
            ids, vectors = load_pbg_tsv(path, wanted)
            stat = path.stat()
            input_hash = hashlib.sha256(json.dumps(
                [str(path.resolve()), stat.st_size, stat.st_mtime_ns, ids]).encode()
            ).hexdigest()[:16]
            self.record_embeddings(ids, vectors, method, input_hash, 0, 0, 0.0, math.nan)
            return ids, vectors, {"entities": len(ids), "vectors_file": str(path)}
        ids, relations, triples = self.triples()
        input_hash = hashlib.sha256(
            triples.tobytes() + json.dumps([ids, relations, self.training_config()],
                                           sort_keys=True).encode()).hexdigest()[:16]
        stats: dict[str, Any] = {"entities": len(ids), "triples": len(triples)}
        prev = self.con.execute(
            "SELECT path, epochs, final_loss FROM embedding_runs WHERE input_hash = ? "
            "AND method = 'complex' ORDER BY created_at DESC LIMIT 1", [input_hash]).fetchone()
        if prev and Path(prev[0]).is_file():
            return ids, np.load(prev[0]), {**stats, "reused": prev[0], "epochs": prev[1]}
        if len(triples) == 0:
            return [], np.zeros((0, 0), dtype=np.float32), stats
        train, held_out = self.split_held_out(triples)
        step = "training ComplEx"

        def on_epoch(epoch: int, model) -> None:
            self.report_progress(StepProgress(step, epoch, cfg.epochs, "epochs"))

        self.report_progress(StepProgress(step, 0, cfg.epochs, "epochs"))

        result = train_complex(train, len(ids), len(relations), rank=cfg.rank,
                               epochs=cfg.epochs, batch_size=cfg.batch_size, lr=cfg.lr,
                               reg=cfg.reg, seed=cfg.seed, threads=cfg.threads,
                               time_budget=cfg.time_budget, held_out=held_out,
                               patience=cfg.patience, on_epoch=on_epoch)
        mrr = "" if result.held_out_mrr is None else \
            f", held-out MRR {result.held_out_mrr:.3f}"
        self.report_progress(StepProgress(step, result.epochs, cfg.epochs, "epochs", finished=True,
                                   note=f"stopped by {result.stopped}{mrr}"))
        self.record_embeddings(ids, result.entity_vectors, method, input_hash, len(triples),
                               result.epochs, result.seconds, result.final_loss)
        return ids, result.entity_vectors, {
            **stats, "epochs": result.epochs, "train_seconds": round(result.seconds, 2),
            "stopped": result.stopped, "held_out_facts": 0 if held_out is None else len(held_out),
            "held_out_mrr": None if result.held_out_mrr is None else round(result.held_out_mrr, 4)}

    def training_config(self) -> dict[str, Any]:
        """What decides the trained vectors (not who gets a related entity)."""
        keys = ("rank", "epochs", "time_budget", "patience", "batch_size", "lr", "reg", "seed")
        return {k: getattr(self.config, k) for k in keys}

    def record_embeddings(self, ids: list[str], vectors: np.ndarray, method: str,
                          input_hash: str, n_triples: int, epochs: int, seconds: float,
                          loss: float) -> None:
        """Save the vectors beside the database (.npy, with a .json of ids and provenance),
        each file written whole and renamed into place, then record the run in
        ``embedding_runs`` (a stopped run leaves no half file a later run could reuse)."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / f"embeddings-{input_hash}.npy"
        meta = {"ids": ids, "method": method, "config": self.config.model_dump(mode="json"),
                "code_version": code_version(), "input_hash": input_hash}
        tmp = path.with_name(path.name + ".part")
        with open(tmp, "wb") as fh:
            np.save(fh, np.asarray(vectors, dtype=np.float32))
        os.replace(tmp, path)
        meta_path = path.with_suffix(".json")
        meta_path.with_name(meta_path.name + ".part").write_text(json.dumps(meta))
        os.replace(meta_path.with_name(meta_path.name + ".part"), meta_path)
        insert_rows(self.con, "embedding_runs", [{
            "run_id": self.run_id, "method": method, "path": str(path),
            "dim": vectors.shape[1] if len(ids) else 0, "entities": len(ids),
            "triples": n_triples, "epochs": epochs, "seconds": seconds, "final_loss": loss,
            "input_hash": input_hash, "code_version": code_version(), "created_at": utcnow()}])

    # -- the stage ------------------------------------------------------------------------
    def process(self) -> dict[str, Any]:
        cfg = self.config
        method = cfg.resolved_method
        stats: dict[str, Any] = {"method": method}
        try:
            people = self.prepare()
            found = self.candidates(people, 1 if method == "shared" else cfg.rerank_top)
            strong = {p: kept for p, options in found.items()
                      if (kept := [o for o in options if o[1] >= cfg.min_score])}
            self.drop_unrelated(people, found, strong)
        finally:
            for table in TEMP_TABLES:
                self.con.execute(f"DROP TABLE IF EXISTS {table}")
        picks = {p: (options[0], options[0][1], "shared") for p, options in strong.items()}
        if method != "shared":
            wanted = set(strong) | {o[0] for options in strong.values() for o in options}
            ids, vectors, emb_stats = self.embeddings(method, wanted)
            stats.update(emb_stats)
            picks.update(rerank(strong, ids, vectors, method))
            stats["ranked_by_shared_links"] = sum(  # no vector for them or their candidates
                1 for _, _, by in picks.values() if by == "shared")
        rows = [{"entity_id": p, "related_id": pick[0], "score": float(score), "method": by,
                 "run_id": self.run_id, "via_id": pick[2], "via_path": pick[3]}
                for p, (pick, score, by) in sorted(picks.items())]
        with transaction(self.con) as con:
            con.execute("DELETE FROM related_entities")
            insert_rows(con, "related_entities", rows)
        stats.update({"people": len(people), "related": len(rows),
                      "without_connection": len(people) - len(found),
                      "weakly_connected": len(found) - len(strong)})
        return stats

    def drop_unrelated(self, people: list[str], found: dict[str, list[tuple]],
                       strong: dict[str, list[tuple]]) -> None:
        """A drop with its reason for every popular person who gets no related entity."""
        cfg = self.config
        other = "another person" if cfg.related_types == ["Q5"] else "another candidate"
        alone = [p for p in people if p not in found]
        links = dict(self.con.execute(
            "SELECT e, count(*) FROM rel_adj WHERE e IN (SELECT unnest(?::VARCHAR[])) "
            "GROUP BY e", [alone]).fetchall()) if alone else {}
        for p in people:
            if p in strong:
                continue
            if p in found:
                r, score, via, path = found[p][0]
                self.drop(p, f"no related entity: its connections to {other} are only items "
                          f"many entities share (score below {cfg.min_score})",
                          f"best: {r} via {via or 'a direct link'} ({path}), score {score:.3f}")
            else:
                self.drop(p, f"no related entity: nothing in the KG connects it to {other} (a "
                          "direct link or a shared work, group, office, family or honour)",
                          f"{links.get(p, 0)} links through connecting properties")


def rerank(strong: dict[str, list[tuple]], ids: list[str], vectors: np.ndarray,
           method: str) -> dict[str, tuple]:
    """person -> (candidate row, cosine, method) for the people with a vector and a candidate
    with one: the best cosine, on a tie the better shared-link score."""
    index = {e: i for i, e in enumerate(ids)}
    unit = unit_rows(vectors) if len(ids) else vectors
    out = {}
    for p, options in strong.items():
        usable = [o for o in options if o[0] in index]
        if p in index and usable:
            cosines = unit[[index[o[0]] for o in usable]] @ unit[index[p]]
            best = int(np.argmax(cosines))
            out[p] = (usable[best], float(cosines[best]), method)
    return out


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero): dot products are cosines."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def describe_path(path: str | None, via_label: str | None,
                  property_labels: dict[str, str]) -> str:
    """A connection as a reader can check it, arrows from a statement's subject to its value:
    ``^P161/P161`` via The Last of Us -> "<- cast member <- The Last of Us -> cast member ->".
    """
    if not path:
        return ""
    out = []
    for n, leg in enumerate(path.split("/")):
        inverse = leg.startswith("^")
        label = property_labels.get(leg.lstrip("^"), leg.lstrip("^"))
        out.append(f"<- {label} <-" if inverse else f"-> {label} ->")
        if n == 0 and "/" in path:
            out.append(via_label or "?")
    return " ".join(out)


def related_rows(con, limit: int = 50) -> list[tuple]:
    """(entity, label, related, label, score, method, via item, via label, connection) for
    each popular person that has a related entity."""
    rows = con.execute(
        "SELECT r.entity_id, a.label, r.related_id, b.label, r.score, r.method, r.via_id, "
        "v.label, r.via_path FROM related_entities r LEFT JOIN entities a ON a.id = r.entity_id "
        "LEFT JOIN entities b ON b.id = r.related_id LEFT JOIN labels v ON v.id = r.via_id "
        "ORDER BY a.label, r.entity_id LIMIT ?", [limit]).fetchall()
    props = {p for *_, path in rows if path for p in re.findall(r"P\d+", path)}
    labels = dict(con.execute("SELECT id, label FROM property_info WHERE id IN "
                              "(SELECT unnest(?::VARCHAR[]))", [sorted(props)]).fetchall())
    return [(*row[:8], describe_path(row[8], row[7], labels)) for row in rows]
