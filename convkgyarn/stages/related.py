"""Related entities R(e): knowledge-graph embeddings and inner-product nearest neighbours.

Embeddings: ComplEx (Trouillon et al., 2016) trained in plain torch with reciprocal
relations, 1-vs-all cross-entropy and N3 regularisation (Lacroix et al., 2018), on the
item-to-item facts of the loaded KG; or published PyTorch-BigGraph Wikidata vectors (TSV:
entity, then floats) for full-Wikidata scale. Neighbours: faiss ``IndexFlatIP`` over
L2-normalised vectors, i.e. cosine similarity. Normalising is our answer to hubs: with
raw inner products, high-degree people (large norms) become everyone's neighbour.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from convkgyarn.stage import Stage, code_version, utcnow
from convkgyarn.store import insert_rows, transaction


@dataclass
class TrainResult:
    entity_vectors: np.ndarray  # (n_entities, 2 * rank): real parts then imaginary parts
    epochs: int
    seconds: float
    final_loss: float
    model: Any = None  # the trained torch module, for scoring (benchmarks)


def train_complex(triples: np.ndarray, n_entities: int, n_relations: int, rank: int = 64,
                  epochs: int = 50, batch_size: int = 1000, lr: float = 0.1, reg: float = 5e-3,
                  init: float = 1e-3, seed: int = 0, time_budget: float | None = None,
                  threads: int | None = None, on_epoch=None) -> TrainResult:
    """ComplEx with reciprocal relations, 1-vs-all cross-entropy, N3 and Adagrad.

    ``triples`` is an int array (n, 3) of (head, relation, tail). ``on_epoch(epoch, model)``
    may evaluate; training stops after ``epochs`` or when ``time_budget`` seconds pass.
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
    start = time.perf_counter()
    loss_value, epoch = math.nan, 0
    for epoch in range(1, epochs + 1):
        perm = data[torch.randperm(len(data), generator=gen)]
        total = 0.0
        for i in range(0, len(perm), batch_size):
            batch = perm[i:i + batch_size]
            scores, factors = model.forward(batch[:, 0], batch[:, 1])
            loss = torch.nn.functional.cross_entropy(scores, batch[:, 2])
            loss = loss + reg * sum(torch.sum(torch.abs(f) ** 3) for f in factors) / len(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        loss_value = total / len(perm)
        if on_epoch:
            on_epoch(epoch, model)
        if time_budget and time.perf_counter() - start > time_budget:
            break
    with torch.no_grad():
        vectors = torch.cat([model.ent_re.weight, model.ent_im.weight], 1).numpy().copy()
    return TrainResult(vectors, epoch, time.perf_counter() - start, loss_value, model)


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
    """Published PyTorch-BigGraph Wikidata vectors: keep only the entities we need (streamed)."""
    ids, rows = [], []
    pattern = re.compile(r"(Q\d+)")
    opener = __import__("gzip").open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            key, _, rest = line.partition("\t")
            m = pattern.search(key)
            if not m or m.group(1) not in wanted:
                continue
            try:
                rows.append(np.array(rest.split("\t"), dtype=np.float32))
            except ValueError as exc:
                raise ValueError(f"{path}:{line_no}: not an entity followed by floats") from exc
            ids.append(m.group(1))
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


class BuildRelated(Stage):
    """Train (or load) embeddings and store each popular person's most similar entity."""

    name = "related.build"
    reads = ("statements",)
    writes = ("embedding_runs", "related_entities")

    def __init__(self, ctx, config=None) -> None:
        super().__init__(ctx, config)
        self.out_dir = ctx.work_dir / "embeddings"

    def default_config(self, ctx):
        return ctx.config.related

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

    def process(self) -> dict[str, Any]:
        cfg = self.config
        if cfg.pretrained:
            wanted = {r[0] for r in self.con.execute("SELECT id FROM entities").fetchall()}
            ids, vectors = load_pbg_tsv(Path(cfg.pretrained), wanted)
            method, epochs, seconds, loss, n_triples = "pbg-pretrained", 0, 0.0, math.nan, 0
            input_hash = hashlib.sha256(str(cfg.pretrained).encode()).hexdigest()[:16]
        else:
            ids, relations, triples = self.triples()
            input_hash = hashlib.sha256(
                triples.tobytes() + json.dumps([ids, relations, cfg.model_dump(mode="json")],
                                               sort_keys=True).encode()).hexdigest()[:16]
            method, n_triples = "complex", len(triples)
            prev = self.con.execute(
                "SELECT path, epochs, seconds, final_loss FROM embedding_runs WHERE "
                "input_hash = ? ORDER BY created_at DESC LIMIT 1", [input_hash]).fetchone()
            if prev and Path(prev[0]).is_file():
                vectors = np.load(prev[0])
                epochs, seconds, loss = prev[1], 0.0, prev[3]
                method = "complex (reused)"
            elif len(triples) == 0:
                return {"method": "none", "related": 0, "reason": "no item-to-item facts"}
            else:
                result = train_complex(triples, len(ids), len(relations), rank=cfg.rank,
                                       epochs=cfg.epochs, batch_size=cfg.batch_size, lr=cfg.lr,
                                       reg=cfg.reg, seed=cfg.seed, threads=cfg.threads)
                vectors, epochs, seconds, loss = (result.entity_vectors, result.epochs,
                                                  result.seconds, result.final_loss)
        path = self.save(ids, vectors, method, input_hash)
        if method != "complex (reused)":
            insert_rows(self.con, "embedding_runs", [{
                "run_id": self.run_id, "method": method, "path": str(path),
                "dim": vectors.shape[1] if len(ids) else 0, "entities": len(ids),
                "triples": n_triples, "epochs": epochs, "seconds": seconds, "final_loss": loss,
                "input_hash": input_hash, "code_version": code_version(),
                "created_at": utcnow()}])
        related = self.store_neighbours(ids, vectors, method)
        return {"method": method, "entities": len(ids), "triples": n_triples, "epochs": epochs,
                "train_seconds": round(seconds, 2), "related": related}

    def save(self, ids: list[str], vectors: np.ndarray, method: str, input_hash: str) -> Path:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / f"embeddings-{input_hash}.npy"
        if not path.exists():
            np.save(path, vectors.astype(np.float32))
        meta = {"ids": ids, "method": method, "config": self.config.model_dump(mode="json"),
                "code_version": code_version(), "input_hash": input_hash}
        (self.out_dir / f"embeddings-{input_hash}.json").write_text(json.dumps(meta))
        return path

    def store_neighbours(self, ids: list[str], vectors: np.ndarray, method: str) -> int:
        """For each popular person, the most similar other entity that has a type."""
        people = [r[0] for r in self.con.execute(
            "SELECT e.id FROM entities e WHERE e.sitelinks >= ? AND e.id IN "
            "(SELECT entity_id FROM entity_types WHERE type_id = 'Q5') ORDER BY e.id",
            [self.config.min_sitelinks]).fetchall()]
        typed = {r[0] for r in self.con.execute(
            "SELECT DISTINCT entity_id FROM entity_types").fetchall()}
        index = {e: i for i, e in enumerate(ids)}
        cand = [i for i, e in enumerate(ids) if e in typed]
        queries = [p for p in people if p in index]
        rows = []
        if cand and queries:
            k = min(len(cand), self.config.neighbours + 1)
            scores, nn = nearest_neighbours(vectors[cand], vectors[[index[q] for q in queries]], k)
            for q, row_s, row_n in zip(queries, scores, nn):
                for s, j in zip(row_s, row_n):
                    other = ids[cand[j]] if j >= 0 else None
                    if other is not None and other != q:
                        rows.append({"entity_id": q, "related_id": other, "score": float(s),
                                     "method": method, "run_id": self.run_id})
                        break
        with transaction(self.con) as con:
            con.execute("DELETE FROM related_entities")
            insert_rows(con, "related_entities", rows)
        return len(rows)


def related_rows(con, limit: int = 50) -> list[tuple]:
    """(entity, label, related, label, cosine, method) for each popular person."""
    return con.execute(
        "SELECT r.entity_id, a.label, r.related_id, b.label, r.score, r.method "
        "FROM related_entities r LEFT JOIN entities a ON a.id = r.entity_id "
        "LEFT JOIN entities b ON b.id = r.related_id ORDER BY a.label LIMIT ?",
        [limit]).fetchall()
