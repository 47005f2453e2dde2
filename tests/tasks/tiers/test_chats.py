"""The everyday task chats that pad a length tier's haystack (tasks/tiers/chats.py, data under tasks/tiers/data/):
seeded and per persona, well formed, free of personal facts and names, varied, and built from data files that keep
their schema and all render."""

from __future__ import annotations

import ast
import itertools
import re
from collections import Counter

import pytest

from tasks.sources.chunking import count_tokens
from tasks.tiers.chatcalc import BUILDERS
from tasks.tiers.chatdata import CHOICE, SLOT, library, validate
from tasks.tiers.chats import TaskChat, frame_renders, task_chats

SENTENCE = re.compile(r"(?<=[.!?])\s+")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
FAMILY = re.compile(r"\bmy (sister|brother|wife|husband|mom|mum|dad|mother|father|boss|friend|colleague|coworker|"
                    r"partner|son|daughter|kids?|family|manager|landlord|roommate|girlfriend|boyfriend)\b", re.I)
LIFE = re.compile(r"\bI (moved|work at|work for|work as|live in|lived in|got married|was born|graduated|started at|"
                  r"just started|am a|'m a|am going to|'m going to|'m heading|am heading|'m flying|have a|had a|"
                  r"bought|spilled|broke|lost my|got a new)\b|\bmy (job|work|office|apartment|house|flat|trip|"
                  r"wedding|birthday|doctor|diagnosis|salary|income)\b", re.I)
NAMES = re.compile(r"\b(John|Mary|Sarah|David|Emma|Maria|Sophia|Michael|James|Anna|Laura|Daniel|Olivia|Peter|"
                   r"Charles|Victoria|Florence|Elizabeth|George|Martin|Christian|Teresa|Dolores)\b")
TARGET_TOKENS = 60_000


@pytest.fixture(scope="module")
def sample() -> list[tuple[TaskChat, int]]:
    """Chats of three personas until about TARGET_TOKENS cl100k_base tokens, each with its token count."""
    out: list[tuple[TaskChat, int]] = []
    for persona in ("pa", "pb", "pc"):
        total = 0
        for chat in task_chats(11, persona):
            tokens = sum(count_tokens(t) for _, t in chat.turns)
            out.append((chat, tokens))
            total += tokens
            if total >= TARGET_TOKENS // 3:
                break
    return out


def distinct_share(chats: list[TaskChat], role: str) -> float:
    """The share of distinct sentences among the role's sentences of six words or more."""
    sentences = [s.strip() for c in chats for r, t in c.turns if r == role for s in SENTENCE.split(t)
                 if len(s.split()) >= 6]
    return len(set(sentences)) / len(sentences)


def test_same_seed_and_persona_give_the_same_stream():
    first = list(itertools.islice(task_chats(5, "p-1"), 40))
    again = list(itertools.islice(task_chats(5, "p-1"), 40))
    assert first == again
    assert [c.chat_id for c in first[:3]] == ["p-1-c00000", "p-1-c00001", "p-1-c00002"]


def test_other_personas_and_seeds_get_other_streams():
    base = [c.text for c in itertools.islice(task_chats(5, "p-1"), 40)]
    other = [c.text for c in itertools.islice(task_chats(5, "p-2"), 40)]
    reseeded = [c.text for c in itertools.islice(task_chats(6, "p-1"), 40)]
    assert len(set(base) & set(other)) <= 1
    assert len(set(base) & set(reseeded)) <= 1


def test_turns_alternate_from_user_to_assistant(sample):
    topics = set(library()["topics"])
    for chat, _ in sample:
        roles = [r for r, _ in chat.turns]
        assert roles[0] == "user" and roles[-1] == "assistant", chat.chat_id
        assert all(a != b for a, b in itertools.pairwise(roles)), chat.chat_id
        assert all(t.strip() and t == t.strip() for _, t in chat.turns), chat.chat_id
        assert chat.topic in topics


def test_no_personal_facts_or_names(sample):
    for chat, _ in sample:
        assert not FAMILY.search(chat.text), (chat.chat_id, FAMILY.search(chat.text))
        assert not NAMES.search(chat.text), (chat.chat_id, NAMES.search(chat.text))
        for role, text in chat.turns:
            if role == "user":
                assert not LIFE.search(text), (chat.chat_id, text)


def test_no_frame_leaves_template_syntax(sample):
    for chat, _ in sample:
        prose = CODE.sub("", chat.text)
        assert not SLOT.search(prose) and not CHOICE.search(prose), (chat.chat_id, prose)


def test_variety_lengths_and_no_repeated_chat(sample):
    chats = [c for c, _ in sample]
    tokens = [t for _, t in sample]
    assert sum(tokens) >= TARGET_TOKENS
    assert distinct_share(chats, "assistant") >= 0.6
    assert distinct_share(chats, "user") >= 0.5
    assert max(Counter(c.text for c in chats).values()) == 1
    mean = sum(tokens) / len(tokens)
    assert 250 <= mean <= 900, mean
    assert min(tokens) < 120 and max(tokens) > 900, (min(tokens), max(tokens))
    assert len({c.topic for c in chats}) == len(library()["topics"])
    assert any(len(c.turns) == 2 for c in chats) and any(len(c.turns) >= 8 for c in chats)


def test_data_files_keep_their_schema():
    assert validate(set(BUILDERS)) == []


def test_every_frame_renders():
    lib = library()
    seen: set[str] = set()
    for label, text in frame_renders():
        prose = CODE.sub("", text)
        assert text.strip() and not SLOT.search(prose) and not CHOICE.search(prose), (label, text)
        seen.add(label.split("#")[0])
        if "/" in label.split("#")[1]:
            seen.add(label.split("#")[0] + "/" + label.split("/")[-1])
    for name, topic in lib["topics"].items():
        for scenario in topic["scenario"]:
            assert f"{name}/{scenario['id']}" in seen
            for fid in scenario.get("followups", []):
                assert f"{name}/{scenario['id']}/{fid}" in seen, f"{name}/{scenario['id']}/{fid} never renders"


def test_python_snippets_parse():
    code = library()["topics"]["code"]["pools"]
    fields = [("code", "fence"), ("alt_code", "alt_fence"), ("test_code", None)]
    snippets = [(t["name"], t[f], d) for t in code["tasks"] for f, fence in fields if f in t
                and (fence is None or t[fence] == "python") for d in code["datasets"]]
    snippets += [(e.get("msg") or e.get("name"), e["code"], None) for e in code["errors"] + code["concepts"]
                 if e.get("fence") == "python"]
    assert snippets
    for name, snippet, dataset in snippets:
        text = snippet
        if dataset:
            text = re.sub(r"<<d\.(\w+)>>", lambda m, d=dataset: d[m.group(1)], text)
        assert "<<" not in text, name
        ast.parse(text)
