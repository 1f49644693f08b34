"""The routing model on a hand-made catalog: every similarity and rank worked out by hand."""

from __future__ import annotations

import math

import pytest

from aeon_evals.catalog.cases import Case, CaseKind, evaluate
from aeon_evals.catalog.routing import (
    STOP_WORDS,
    SkillText,
    build_model,
    collisions,
    document_terms,
    route,
    similarity,
    tokens,
)
from aeon_evals.catalog.stem import stem

# Porter's own examples (1980 paper, steps 1–5) and a few from real descriptions.
STEMS = [
    ("caresses", "caress"),
    ("ponies", "poni"),
    ("ties", "ti"),
    ("cats", "cat"),
    ("feed", "feed"),
    ("agreed", "agre"),
    ("plastered", "plaster"),
    ("bled", "bled"),
    ("motoring", "motor"),
    ("sing", "sing"),
    ("conflated", "conflat"),
    ("troubled", "troubl"),
    ("sized", "size"),
    ("hopping", "hop"),
    ("tanned", "tan"),
    ("falling", "fall"),
    ("hissing", "hiss"),
    ("fizzed", "fizz"),
    ("failing", "fail"),
    ("filing", "file"),
    ("happy", "happi"),
    ("sky", "sky"),
    ("relational", "relat"),
    ("conditional", "condit"),
    ("rational", "ration"),
    ("digitizer", "digit"),
    ("operator", "oper"),
    ("hopefulness", "hope"),
    ("formaliti", "formal"),
    ("triplicate", "triplic"),
    ("electrical", "electr"),
    ("goodness", "good"),
    ("allowance", "allow"),
    ("adjustment", "adjust"),
    ("adoption", "adopt"),
    ("effective", "effect"),
    ("probate", "probat"),
    ("rate", "rate"),
    ("cease", "ceas"),
    ("controll", "control"),
    ("roll", "roll"),
    ("monitoring", "monitor"),
    ("monitors", "monitor"),
    ("digests", "digest"),
    ("daily", "daili"),
    ("24h", "24h"),  # not all letters: unchanged
    ("émigré", "émigré"),  # not ASCII: unchanged
    ("go", "go"),  # two letters: unchanged
]


@pytest.mark.parametrize(("word", "expected"), STEMS)
def test_porter_stem(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_tokens_fold_case_split_on_punctuation_drop_stop_words_and_stem() -> None:
    text = "Monitors the Polymarket markets (24h moves) — use when a user asks, e.g. `paper-pick`"
    assert tokens(text) == [
        "monitor",
        "polymarket",
        "market",
        "24h",
        "move",
        "user",
        "ask",
        "paper",
        "pick",
    ]  # "the", "use", "when", "a" are stop words; "e" and "g" have one letter
    assert {"the", "use", "when", "a"} <= STOP_WORDS


def test_document_counts_the_name_twice() -> None:
    terms = document_terms(SkillText("paper-pick", "Paper Pick", "Pick papers."))
    assert terms == {"paper": 3, "pick": 3}


# The hand-made catalog (N = 4 documents):
#   paper-pick    name ×2 + "Pick papers."                → paper 3, pick 3
#   paper-picks   name ×2 + "Picks papers daily."         → paper 3, pick 3, daili 1
#   paper-digest  name ×2 + "Digest papers, pick papers." → paper 4, digest 3, pick 1
#   rss-feed      name ×2 + "Feeds."                      → rss 2, feed 3
# Document frequencies: paper 3, pick 3, daili 1, digest 1, rss 1, feed 1, so
#   idf(paper) = idf(pick) = 1 + ln(5/4) = p ≈ 1.223144
#   idf(daili) = idf(digest) = idf(rss) = idf(feed) = 1 + ln(5/2) = r ≈ 1.916291
CATALOG = [
    SkillText("paper-pick", "paper-pick", "Pick papers."),
    SkillText("paper-picks", "paper-picks", "Picks papers daily."),
    SkillText("paper-digest", "paper-digest", "Digest papers, pick papers."),
    SkillText("rss-feed", "rss-feed", "Feeds."),
]
P = 1 + math.log(5 / 4)
R = 1 + math.log(5 / 2)
# Unnormalised vectors: paper-pick (3p, 3p); paper-picks (3p, 3p, r); paper-digest (4p, 3r, p).
NORM_PICK = math.sqrt(18 * P * P)
NORM_PICKS = math.sqrt(18 * P * P + R * R)
NORM_DIGEST = math.sqrt(17 * P * P + 9 * R * R)


def test_idf_and_vectors() -> None:
    model = build_model(reversed(CATALOG))
    assert model.skills == ("paper-digest", "paper-pick", "paper-picks", "rss-feed")
    assert model.idf["paper"] == pytest.approx(1.223144, abs=1e-6)
    assert model.idf["digest"] == pytest.approx(1.916291, abs=1e-6)
    assert model.vectors["paper-pick"] == pytest.approx(
        {"paper": 1 / math.sqrt(2), "pick": 1 / math.sqrt(2)}
    )
    assert model.vectors["paper-digest"]["digest"] == pytest.approx(3 * R / NORM_DIGEST)


def test_similarities_worked_by_hand() -> None:
    model = build_model(CATALOG)
    # pick·picks = (9p² + 9p²) / (|pick| |picks|) = √(18p² / (18p² + r²))
    assert similarity(model, "paper-pick", "paper-picks") == pytest.approx(0.938084, abs=1e-6)
    by_hand = math.sqrt(18 * P * P / (18 * P * P + R * R))
    assert by_hand == pytest.approx(0.938084, abs=1e-6)
    # pick·digest = (3p·4p + 3p·p) / (|pick| |digest|) = 15p² / (√18 p · √(17p² + 9r²))
    assert similarity(model, "paper-digest", "paper-pick") == pytest.approx(0.565481, abs=1e-6)
    by_hand = 15 * P * P / (NORM_PICK * NORM_DIGEST)
    assert by_hand == pytest.approx(0.565481, abs=1e-6)
    # picks·digest = 15p² / (√(18p² + r²) · √(17p² + 9r²))
    assert similarity(model, "paper-digest", "paper-picks") == pytest.approx(0.530468, abs=1e-6)
    assert similarity(model, "paper-pick", "rss-feed") == 0.0


def test_collisions_at_the_lint_thresholds() -> None:
    model = build_model(CATALOG)
    found = collisions(model, 0.5)
    assert [(c.a, c.b, c.similarity) for c in found] == [
        ("paper-pick", "paper-picks", 0.938084),  # ≥ 0.75: an error in lint
        ("paper-digest", "paper-pick", 0.565481),  # ≥ 0.5: a warning
        ("paper-digest", "paper-picks", 0.530468),
    ]
    # What drives pick/picks: paper and pick, each 3p/√18p · 3p/√(18p²+r²) = 0.469042
    assert found[0].terms() == "paper 0.47, pick 0.47"
    # pick/digest: paper 4p·(1/√2)/|digest| = 0.452385, pick p·(1/√2)/|digest| = 0.113096
    assert found[1].terms() == "paper 0.45, pick 0.11"
    assert collisions(model, 0.75) == found[:1]
    assert [(c.a, c.b) for c in collisions(model, 0.5, among=["paper-digest"])] == [
        ("paper-digest", "paper-pick"),
        ("paper-digest", "paper-picks"),
    ]


def test_route_ranks_worked_by_hand() -> None:
    model = build_model(CATALOG)
    # "pick a paper" → query (pick p, paper p), unit (1/√2, 1/√2): the cosine with each document
    ranked = route(model, "pick a paper")
    assert [(r.skill, r.score) for r in ranked] == [
        ("paper-pick", 1.0),
        ("paper-picks", 0.938084),
        ("paper-digest", 0.565481),
    ]  # rss-feed shares no term with the prompt: not listed (0)
    # "daily digest" → (daili r, digest r), unit (1/√2, 1/√2):
    #   paper-picks  r/√2 / |picks| = 0.244948;   paper-digest 3r/√2 / |digest| = 0.531561
    ranked = route(model, "daily digest")
    assert [(r.skill, r.score) for r in ranked] == [
        ("paper-digest", 0.531561),
        ("paper-picks", 0.244948),
    ]
    by_hand = R / math.sqrt(2) / NORM_PICKS
    assert by_hand == pytest.approx(0.244948, abs=1e-6)


def _case(skill: str, kind: CaseKind, prompt: str, **kw: object) -> Case:
    return Case(skill, kind, prompt, "trigger.json", 1, **kw)  # type: ignore[arg-type]


def test_positive_and_negative_cases() -> None:
    model = build_model(CATALOG)
    pos = CaseKind.POSITIVE
    neg = CaseKind.NEGATIVE
    first = evaluate(model, _case("paper-pick", pos, "pick a paper"))
    assert (first.rank, first.passed, first.first) == (1, True, True)
    second = evaluate(model, _case("paper-picks", pos, "pick a paper"))
    assert (second.rank, second.passed) == (2, False)
    assert [a.skill for a in second.above] == ["paper-pick"]
    assert second.why == "rank 2 (score 0.938), wanted top 1; above it: paper-pick 1.000"
    assert evaluate(model, _case("paper-picks", pos, "pick a paper", top_k=2)).passed
    nothing = evaluate(model, _case("rss-feed", pos, "pick a paper", top_k=4))
    assert (nothing.rank, nothing.passed) == (4, False)  # score 0: never a match
    # Negative: "pick a paper" must not go to paper-digest; its owner paper-pick ranks above.
    owned = evaluate(model, _case("paper-digest", neg, "pick a paper", owner="paper-pick"))
    assert (owned.rank, owned.passed) == (3, True)
    wrong_owner = evaluate(model, _case("paper-pick", neg, "daily digest", owner="rss-feed"))
    assert (wrong_owner.passed, wrong_owner.score) == (True, 0.0)  # paper-pick scores 0: not routed
    wins = evaluate(model, _case("paper-pick", neg, "pick a paper"))
    assert (wins.rank, wins.passed) == (1, False)
    under_owner = evaluate(model, _case("paper-picks", neg, "pick a paper", owner="paper-digest"))
    assert not under_owner.passed  # the owner (0.565) does not rank above paper-picks (0.938)
    assert under_owner.why.startswith("owner paper-digest (0.565) does not rank above it")


def test_ties_count_against_the_case() -> None:
    twins = build_model(
        [SkillText("alpha", "alpha", "Watch prices."), SkillText("beta", "beta", "Watch prices.")]
    )
    pos = evaluate(twins, _case("alpha", CaseKind.POSITIVE, "watch prices"))
    assert (pos.rank, pos.passed, pos.first) == (2, False, False)  # tied with beta: not first
    assert evaluate(twins, _case("alpha", CaseKind.POSITIVE, "watch prices", top_k=2)).passed
    neg = evaluate(twins, _case("alpha", CaseKind.NEGATIVE, "watch prices"))
    assert (neg.rank, neg.passed) == (1, False)  # tied for first: may well be picked


def test_the_model_does_not_depend_on_input_order() -> None:
    a = build_model(CATALOG)
    b = build_model(list(reversed(CATALOG)))
    assert a.skills == b.skills
    assert [(c.a, c.b, c.similarity) for c in collisions(a, 0.0)] == [
        (c.a, c.b, c.similarity) for c in collisions(b, 0.0)
    ]


def test_the_prefix_filter_finds_every_pair_a_full_comparison_finds() -> None:
    texts = [
        SkillText(f"s{i:02d}", f"s{i:02d}", " ".join(f"w{(i * j) % 11}" for j in range(1, 6)))
        for i in range(30)
    ]
    model = build_model(texts)
    for threshold in (0.3, 0.5, 0.75):
        brute = sorted(
            (a, b)
            for i, a in enumerate(model.skills)
            for b in model.skills[i + 1 :]
            if similarity(model, a, b) >= threshold
        )
        assert sorted((c.a, c.b) for c in collisions(model, threshold)) == brute
