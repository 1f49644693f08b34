"""The catalog's routing model: stemmed TF-IDF over each skill's name (twice) and description.

Pure and deterministic (docs/catalog.md works an example through by hand): text → tokens
(`tokens`), tokens → a unit vector per skill (`build_model`), then the cosine similarity of
every pair of skills (`collisions`) and of a prompt against every skill (`route`). Scores
are rounded to `DIGITS` decimals before they are compared, sorted or shown, so a last-bit
difference in a platform's `log` cannot move a rank or cross a threshold; ties are broken by
skill name.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aeon_evals.catalog.stem import stem

DIGITS = 6  # similarities are compared and sorted at this precision
COLLISION_WARNING = 0.5
COLLISION_ERROR = 0.75
SHARED_TERMS_SHOWN = 5

# English function words, plus the "use when" boilerplate of Agent Skills descriptions. Matched
# before stemming; words of one character are dropped as well.
_STOP_WORDS = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each either etc
    few for from further had has have having he her here hers herself him himself his how if
    in into is it its itself just may me might more most must my myself no nor not now of off
    on once only or other our ours ourselves out over own per same she should so some such
    than that the their theirs them themselves then there these they this those through to too
    under until up upon us use used uses using very via was we were what when whenever where
    which while who whom whose why will with within without would you your yours yourself
    yourselves
"""
STOP_WORDS = frozenset(_STOP_WORDS.split())

# Runs of letters or digits in any script: `paper-pick` → paper, pick; `RSS/Atom` → rss, atom.
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The content words of `text`, case-folded, in order: stop words and 1-character words out."""
    return [w for w in _WORD.findall(text.casefold()) if len(w) > 1 and w not in STOP_WORDS]


def tokens(text: str) -> list[str]:
    """The terms of `text`: its content words (`words`), each Porter-stemmed."""
    return [stem(w) for w in words(text)]


@dataclass(frozen=True)
class SkillText:
    """What routing sees of one skill: its folder, the name it declares and its description."""

    skill: str
    name: str
    description: str


def document_words(text: SkillText) -> list[str]:
    """The words of a skill's document: the name's twice, then the description's."""
    name = words(text.name)
    return [*name, *name, *words(text.description)]


def document_terms(text: SkillText) -> Counter[str]:
    """Term counts of a skill's document (`document_words`, each stemmed)."""
    return Counter(map(stem, document_words(text)))


@dataclass(frozen=True)
class Model:
    """The fitted catalog.

    `idf` holds 1 + ln((1 + N) / (1 + df)) for every term of the N documents; `vectors` each
    skill's unit TF-IDF vector; `surface` the word most often behind each stem (for display).
    """

    skills: tuple[str, ...]
    idf: Mapping[str, float]
    vectors: Mapping[str, Mapping[str, float]]
    postings: Mapping[str, tuple[tuple[str, ...], tuple[float, ...]]]  # term → skills, weights
    surface: Mapping[str, str]

    def weights(self, terms: Counter[str]) -> dict[str, float]:
        """A unit TF-IDF vector for `terms`; terms the catalog does not know are left out."""
        raw = {t: n * self.idf[t] for t, n in terms.items() if t in self.idf}
        return _unit(raw)

    def show(self, term: str) -> str:
        """The word a reader recognises for a stem (`daily` for `daili`)."""
        return self.surface.get(term, term)


def _unit(raw: Mapping[str, float]) -> dict[str, float]:
    norm = math.sqrt(math.fsum(v * v for v in raw.values()))
    if norm == 0.0:
        return {}
    return {t: v / norm for t, v in raw.items()}


def score(value: float) -> float:
    """A similarity at the model's precision (`DIGITS` decimals), clamped to [0, 1]."""
    return min(1.0, max(0.0, round(value, DIGITS)))


def build_model(texts: Iterable[SkillText]) -> Model:
    """Fit the model on a catalog: one document per skill, in skill-name order."""
    ordered = sorted(texts, key=lambda t: t.skill)
    # the words of each document, once: its terms and the words shown for them come from them
    docs: dict[str, Counter[str]] = {}
    shown: Counter[tuple[str, str]] = Counter()  # (term, word) → how often
    for t in ordered:
        doc_words = document_words(t)
        stems = list(map(stem, doc_words))
        docs[t.skill] = Counter(stems)
        shown.update(zip(stems, doc_words, strict=True))
    df: Counter[str] = Counter()
    for terms in docs.values():
        df.update(terms.keys())
    n = len(docs)
    idf = {t: 1.0 + math.log((1 + n) / (1 + d)) for t, d in sorted(df.items())}
    vectors = {
        skill: _unit({t: c * idf[t] for t, c in sorted(terms.items())})
        for skill, terms in docs.items()
    }
    postings: dict[str, list[tuple[str, float]]] = {}
    for skill, vector in vectors.items():
        for term, weight in vector.items():
            postings.setdefault(term, []).append((skill, weight))
    best: dict[str, tuple[int, str]] = {}  # term → (-count, word) of its most frequent word
    for (term, word), count in shown.items():
        old = best.get(term)
        if old is None or (-count, word) < old:
            best[term] = (-count, word)
    surface = {term: word for term, (_, word) in best.items()}
    return Model(
        skills=tuple(docs),
        idf=idf,
        vectors=vectors,
        postings={t: (tuple(s for s, _ in p), tuple(w for _, w in p)) for t, p in postings.items()},
        surface=surface,
    )


def similarity(model: Model, a: str, b: str) -> float:
    """Cosine similarity of two skills' documents, at the model's precision."""
    va, vb = model.vectors[a], model.vectors[b]
    if len(vb) < len(va):
        va, vb = vb, va
    return score(math.fsum(w * vb[t] for t, w in va.items() if t in vb))


@dataclass(frozen=True)
class Shared:
    """One term two documents share, and how much of their similarity it makes."""

    term: str
    word: str
    contribution: float


@dataclass(frozen=True)
class Collision:
    """Two skills whose documents are similar enough to confuse a router (a < b by name)."""

    a: str
    b: str
    similarity: float
    shared: tuple[Shared, ...]

    def terms(self, limit: int = SHARED_TERMS_SHOWN) -> str:
        """The shared terms that drive the similarity, biggest share first: `monitor 0.41, …`."""
        return ", ".join(f"{s.word} {s.contribution:.2f}" for s in self.shared[:limit])


def shared_terms(model: Model, a: str, b: str) -> tuple[Shared, ...]:
    """The terms of a pair, by their share of the dot product (largest first, then by term)."""
    va, vb = model.vectors[a], model.vectors[b]
    parts = [(t, round(w * vb[t], DIGITS)) for t, w in va.items() if t in vb]
    parts.sort(key=lambda p: (-p[1], p[0]))
    return tuple(Shared(t, model.show(t), c) for t, c in parts)


def _pairs(model: Model, threshold: float) -> list[tuple[str, str]]:
    """Every pair whose similarity may reach `threshold`, without comparing every pair.

    The all-pairs search of Bayardo, Ma and Srikant (2007), simplified: terms are put in one
    global order, most frequent first. In each vector, the leading terms whose weights' squares
    sum to less than threshold² cannot make the similarity alone (Cauchy–Schwarz), so a pair at
    or above the threshold shares a term outside that prefix in both vectors (its rarest shared
    term). Only those suffix terms are indexed; each skill probes the index of the skills before
    it, accumulating the dot product, then adds what the other's prefix contributes.
    """
    order = {
        t: i
        for i, t in enumerate(sorted(model.postings, key=lambda t: (-len(model.postings[t][0]), t)))
    }
    bound = threshold * threshold
    floor = threshold - 2 * 10.0**-DIGITS  # sums in another order differ in the last bits
    index: dict[str, list[tuple[int, float]]] = {}
    prefixes: list[dict[str, float]] = []
    # per indexed skill: the order of its first indexed term and the length of its prefix
    edges: list[tuple[int, float]] = []
    found: list[tuple[str, str]] = []
    skills = model.skills
    for i, skill in enumerate(skills):
        vector = model.vectors[skill]
        terms = sorted(vector, key=order.__getitem__)
        orders = [order[t] for t in terms]
        mass = list(itertools.accumulate(vector[t] * vector[t] for t in terms))
        partial: dict[int, float] = {}
        for term, weight in vector.items():
            for j, other in index.get(term, ()):
                partial[j] = partial.get(j, 0.0) + weight * other
        for j, dot in partial.items():
            # what j's prefix can still add is at most |prefix_j| times the length of this
            # vector's part over the same (earlier) terms (Cauchy–Schwarz): most candidates
            # share one common term and stop here without a look at the prefix
            edge, length = edges[j]
            k = bisect.bisect_left(orders, edge)
            if k and dot + length * math.sqrt(mass[k - 1]) + 1e-9 >= floor:
                for term, other in prefixes[j].items():
                    if term in vector:
                        dot += vector[term] * other
            if dot >= floor:
                found.append((skills[j], skill))
        running = 0.0
        prefix: dict[str, float] = {}
        edge = len(order)
        for term in terms:
            weight = vector[term]
            running += weight * weight
            if running >= bound:
                edge = min(edge, order[term])
                index.setdefault(term, []).append((i, weight))
            else:
                prefix[term] = weight
        prefixes.append(prefix)
        edges.append((edge, math.sqrt(math.fsum(w * w for w in prefix.values()))))
    return found


def collisions(
    model: Model, threshold: float = COLLISION_WARNING, *, among: Iterable[str] | None = None
) -> list[Collision]:
    """Every pair of skills at or above `threshold` similarity, most similar first.

    With `among`, only pairs that involve one of those skills. The result is sorted by
    similarity (descending), then by the two names.
    """
    wanted = set(among) if among is not None else None
    found: list[Collision] = []
    for a, b in _pairs(model, max(0.0, threshold - 10.0**-DIGITS)):
        if wanted is not None and a not in wanted and b not in wanted:
            continue
        value = similarity(model, a, b)  # the one reported value: same sum whatever found it
        if value >= threshold:
            found.append(Collision(a, b, value, shared_terms(model, a, b)))
    found.sort(key=lambda c: (-c.similarity, c.a, c.b))
    return found


@dataclass(frozen=True)
class Ranked:
    """One skill's score for a prompt."""

    skill: str
    score: float


def raw_scores(model: Model, prompt: str) -> dict[str, float]:
    """Unrounded dot products of `prompt` with every skill it shares a term with; compare them
    only after `score()` (or with a margin of 10⁻⁶ before it)."""
    query = model.weights(Counter(tokens(prompt)))
    totals: dict[str, float] = {}
    for term, weight in query.items():
        skills, weights = model.postings[term]
        products = map(weight.__mul__, weights)
        if not totals:  # the first term's products in one step (0.0 + x is x)
            totals = dict(zip(skills, products, strict=True))
            continue
        get = totals.get
        for skill, product in zip(skills, products, strict=True):
            totals[skill] = get(skill, 0.0) + product
    return totals


def scores(model: Model, prompt: str) -> dict[str, float]:
    """The cosine similarity of `prompt` with every skill it shares a term with (others: 0)."""
    out: dict[str, float] = {}
    for skill, total in raw_scores(model, prompt).items():
        value = score(total)
        if value > 0:
            out[skill] = value
    return out


def ranked(found: Mapping[str, float]) -> list[Ranked]:
    """Scores best first, then by skill name."""
    return sorted((Ranked(s, v) for s, v in found.items()), key=lambda r: (-r.score, r.skill))


def route(model: Model, prompt: str) -> list[Ranked]:
    """The skills that share a term with `prompt`, best first, then by name (every skill not
    listed scores 0)."""
    return ranked(scores(model, prompt))
