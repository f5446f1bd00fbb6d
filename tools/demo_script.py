"""The scripted research behind the demo library (what the recorded demo updates "found").

It is illustrative, not current research: every document says so in its first paragraph, and
the news it "finds" comes from ``*.example`` sites. General background is cited to real
reference pages. ``demo_build`` plays these rounds through the loopback mock API, records each
exchange as a cassette, and replays the cassettes to populate the documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

__all__ = ["DEMO_TODAY", "DOCS", "DemoDoc", "Round"]

DEMO_TODAY = date(2026, 12, 1)  # the day the notebooks pin with OO_TODAY
DEMO_NOTE = "(A demo document: its research was recorded for the oo_nb tutorials and is illustrative, not current.)"


@dataclass(frozen=True)
class Round:
    """One recorded update: what the agent searched, fetched and submitted.

    ``sections`` maps a section id to (title, paragraphs). A paragraph at the same position as
    an existing one takes over its pid (so a changed paragraph shows as *changed*, not removed
    and added); extra paragraphs are new."""

    today: date
    summary: str
    searches: tuple[str, ...]
    sections: dict[str, tuple[str, tuple[str, ...]]]
    sources: tuple[dict[str, Any], ...]
    facts: tuple[dict[str, Any], ...] = ()
    drop_sources: tuple[str, ...] = ()
    sentinel: dict[str, str] | None = None
    # source id -> the text its fetched page "said", where it is not simply the quotes of the
    # facts citing it (``demo_build.page_texts``)
    pages: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DemoDoc:
    title: str  # "Title / scope", as typed to `oo new`
    every: int
    rounds: tuple[Round, ...]  # applied to build the shipped document
    next_round: Round | None = None  # recorded only: the cassette the notebooks replay
    sentinel: str | None = None
    shipped: bool = True  # False: the notebooks create it themselves (only its cassette ships)
    options: dict[str, str] = field(default_factory=dict)


def _src(sid: str, url: str, title: str, tier: str, accessed: str) -> dict[str, Any]:
    return {"id": sid, "url": url, "title": title, "tier": tier, "accessed": accessed}


HEAT_PUMPS = DemoDoc(
    title="Heat pumps in Europe / sales, prices and policy across EU markets",
    every=7,
    rounds=(
        Round(
            today=date(2026, 11, 16),
            summary="First research: how heat pumps work, the European market after the 2022 peak, running costs.",
            searches=(
                "heat pumps Europe sales 2026",
                "heat pump running costs electricity gas price ratio",
            ),
            sections={
                "overview": (
                    "Overview",
                    (
                        "This document follows heat pumps — electric heating that moves heat instead of burning fuel — across European markets. "
                        + DEMO_NOTE,
                        "A heat pump moves heat from the outside air, the ground or water into a building and typically delivers three to four units of heat for each unit of electricity it uses [s1][s4]. That efficiency puts heat pumps at the centre of EU plans to cut gas use in buildings [s3].",
                    ),
                ),
                "key-details": (
                    "Key Details",
                    (
                        "Sales in Europe grew quickly in 2021 and 2022, when gas prices spiked, then fell back in 2023 and 2024 as energy prices eased and several countries changed their subsidy schemes [s2].",
                        "Running costs depend mostly on the ratio between electricity and gas prices: where electricity is taxed heavily compared with gas, a heat pump pays for itself more slowly [s1].",
                        "Air-to-water and air-to-air units make up most installations; ground-source systems cost more to install but run more efficiently [s4].",
                    ),
                ),
                "recent-developments": (
                    "Recent Developments",
                    (
                        "Installers reported a slow start to the heating season and blamed uncertainty about grants [s5].",
                    ),
                ),
            },
            sources=(
                _src(
                    "s1",
                    "https://www.iea.org/energy-system/buildings/heat-pumps",
                    "Heat pumps — IEA",
                    "official",
                    "2026-11-16",
                ),
                _src(
                    "s2",
                    "https://www.ehpa.org/market-data/",
                    "Market data — European Heat Pump Association",
                    "industry",
                    "2026-11-16",
                ),
                _src(
                    "s3",
                    "https://energy.ec.europa.eu/topics/energy-efficiency/heat-pumps_en",
                    "Heat pumps — European Commission",
                    "official",
                    "2026-11-16",
                ),
                _src(
                    "s4",
                    "https://en.wikipedia.org/wiki/Heat_pump",
                    "Heat pump — Wikipedia",
                    "reference",
                    "2026-11-16",
                ),
                _src(
                    "s5",
                    "https://heating-news.example/2026/11/slow-start-to-the-season",
                    "A slow start to the heating season (demo)",
                    "news",
                    "2026-11-16",
                ),
            ),
            facts=(
                {
                    "text": "Heat pumps typically deliver three to four units of heat per unit of electricity.",
                    "source_ids": ["s1", "s4"],
                    "quote": "A heat pump typically delivers three to four units of heat for every unit of electricity it uses.",
                },
                {
                    "text": "European heat pump sales fell in 2023 and 2024 after the 2022 peak.",
                    "source_ids": ["s2"],
                    "quote": "Sales of heat pumps in Europe fell in 2023 and again in 2024, after the record year of 2022.",
                },
            ),
        ),
    ),
    next_round=Round(
        today=DEMO_TODAY,
        summary="Grant stability matters more than grant size (installer survey); new section on off-peak heat-pump tariffs.",
        searches=("heat pump installer survey grants", "heat pump electricity tariff off-peak"),
        sections={
            "overview": (
                "Overview",
                (
                    "This document follows heat pumps — electric heating that moves heat instead of burning fuel — across European markets. "
                    + DEMO_NOTE,
                    "A heat pump moves heat from the outside air, the ground or water into a building and typically delivers three to four units of heat for each unit of electricity it uses [s1][s4]. That efficiency puts heat pumps at the centre of EU plans to cut gas use in buildings, and national grant schemes keep adjusting to it [s3][s6].",
                ),
            ),
            "recent-developments": (
                "Recent Developments",
                (
                    "Installers reported a slow start to the heating season and blamed uncertainty about grants [s5].",
                    "A survey of installers found that buyers care more about grant rules that stay stable for several years than about the size of the grant [s6].",
                ),
            ),
            "tariffs": (
                "Prices and Tariffs",
                (
                    "Several utilities now offer heat-pump tariffs with cheaper off-peak hours, which shorten the payback time for households that can shift heating into those hours [s7].",
                ),
            ),
        },
        sources=(
            _src(
                "s6",
                "https://heating-news.example/2026/11/installer-survey",
                "Installer survey: stable grants beat bigger grants (demo)",
                "news",
                "2026-12-01",
            ),
            _src(
                "s7",
                "https://energy-prices.example/heat-pump-tariffs",
                "Heat-pump tariffs compared (demo)",
                "industry",
                "2026-12-01",
            ),
        ),
        # the survey page words it differently: the fact's quote is not on it, so the review
        # shows an unsupported fact
        pages={
            "s6": "Installer survey: stable grants beat bigger grants (demo). Stable grant rules "
            "mattered more to buyers than the size of the grant, the installers said. "
            "(Recorded demo page.)"
        },
        facts=(
            {
                "text": "Installers say stable grant rules matter more to buyers than grant size.",
                "source_ids": ["s6"],
                "quote": "Buyers care more about grant stability than about the size of the grant.",
            },
        ),
    ),
)

PEROVSKITE = DemoDoc(
    title="Perovskite solar cells / efficiency records, stability and the road to mass production",
    every=30,
    rounds=(
        Round(
            today=date(2026, 11, 20),
            summary="First research: what perovskites are, tandem efficiency records, the stability problem.",
            searches=(
                "perovskite silicon tandem efficiency record",
                "perovskite solar cell stability",
            ),
            sections={
                "overview": (
                    "Overview",
                    (
                        "This document follows perovskite solar cells from the laboratory towards the factory. "
                        + DEMO_NOTE,
                        "Perovskites are crystals that absorb sunlight strongly and can be made from solution at low temperature [s3]. Stacked on top of silicon in a tandem cell, they use more of the solar spectrum than silicon alone [s1].",
                    ),
                ),
                "key-details": (
                    "Key Details",
                    (
                        "Laboratory perovskite–silicon tandem cells have passed 33 per cent efficiency, above the practical limit of single-junction silicon cells [s1][s2].",
                        "Durability is the main obstacle: perovskites degrade with moisture, heat and light, and outdoor lifetimes still trail the 25-year warranties of silicon panels [s3][s4].",
                    ),
                ),
                "recent-developments": (
                    "Recent Developments",
                    (
                        "Pilot production lines report first commercial tandem modules, in small volumes [s5].",
                    ),
                ),
            },
            sources=(
                _src(
                    "s1",
                    "https://www.nrel.gov/pv/cell-efficiency.html",
                    "Best research-cell efficiency chart — NREL",
                    "official",
                    "2026-11-20",
                ),
                _src(
                    "s2",
                    "https://en.wikipedia.org/wiki/Perovskite_solar_cell",
                    "Perovskite solar cell — Wikipedia",
                    "reference",
                    "2026-11-20",
                ),
                _src(
                    "s3",
                    "https://www.energy.gov/eere/solar/perovskite-solar-cells",
                    "Perovskite solar cells — US Department of Energy",
                    "official",
                    "2024-03-04",
                ),
                _src(
                    "s4",
                    "https://www.nature.com/subjects/solar-cells",
                    "Solar cells — Nature subject page",
                    "academic_journal",
                    "2026-11-20",
                ),
                _src(
                    "s5",
                    "https://pv-news.example/2026/11/tandem-pilot-lines",
                    "Tandem pilot lines ship first modules (demo)",
                    "news",
                    "2026-11-20",
                ),
                _src(
                    "s6",
                    "https://pv-news.example/2026/10/perovskite-explainer",
                    "Perovskites explained (demo)",
                    "tech_media",
                    "2026-11-20",
                ),
            ),
            facts=(
                {
                    "text": "Perovskite–silicon tandem cells have passed 33% efficiency in the laboratory.",
                    "source_ids": ["s1"],
                    "quote": "Perovskite-silicon tandem cells have now passed 33 percent efficiency in the laboratory.",
                },
                {
                    "text": "Perovskite stability still trails silicon's 25-year warranties.",
                    "source_ids": ["s3", "s4"],
                    "quote": "Perovskite modules do not yet come close to the 25-year warranties that silicon panels carry.",
                },
            ),
        ),
    ),
)

OPEN_MODELS = DemoDoc(
    title="Open-weight language models / releases, licences and how to compare them",
    every=14,
    rounds=(
        Round(
            today=date(2026, 10, 19),
            summary="First research: what open weights means, the main families and their licences.",
            searches=("open-weight language models licences", "open source AI definition weights"),
            sections={
                "overview": (
                    "Overview",
                    (
                        "This document follows language models whose weights anyone can download. "
                        + DEMO_NOTE,
                        "An open-weight model publishes its trained parameters, so anyone can run it on their own hardware; that is not the same as open source, which also asks for the training code and enough information about the data to rebuild it [s4].",
                    ),
                ),
                "key-details": (
                    "Key Details",
                    (
                        "The best-known families include Meta's Llama, Mistral's models, Alibaba's Qwen, DeepSeek and Google's Gemma [s1][s2][s3].",
                        "Licences differ: some models use Apache 2.0 or MIT, others custom licences with conditions on use and on very large deployments [s2][s3].",
                    ),
                ),
                "recent-developments": (
                    "Recent Developments",
                    (
                        "New releases arrive every few weeks; model hubs list thousands of fine-tuned variants of each family [s1].",
                    ),
                ),
            },
            sources=(
                _src(
                    "s1",
                    "https://huggingface.co/models",
                    "Models — Hugging Face",
                    "aggregator",
                    "2026-10-19",
                ),
                _src("s2", "https://www.llama.com/", "Llama — Meta", "vendor", "2026-10-19"),
                _src("s3", "https://mistral.ai/news/", "News — Mistral AI", "vendor", "2026-10-19"),
                _src(
                    "s4",
                    "https://opensource.org/ai/open-source-ai-definition",
                    "The Open Source AI Definition — OSI",
                    "official",
                    "2026-10-19",
                ),
                _src(
                    "s5", "https://lmarena.ai/", "LMArena leaderboard", "aggregator", "2026-10-19"
                ),
            ),
            facts=(
                {
                    "text": "Open weights are not the same as open source under the OSI definition.",
                    "source_ids": ["s4"],
                    "quote": "Open weights are not open source as the Open Source AI Definition understands it.",
                },
                {
                    "text": "Leaderboards rank open and closed models side by side.",
                    "source_ids": [],
                },
            ),
        ),
    ),
    next_round=Round(
        today=DEMO_TODAY,
        summary="How to compare models: a new section on leaderboards and their limits; licence paragraph sharpened.",
        searches=("open model leaderboard comparison", "open weight licence commercial use"),
        sections={
            "key-details": (
                "Key Details",
                (
                    "The best-known families include Meta's Llama, Mistral's models, Alibaba's Qwen, DeepSeek and Google's Gemma [s1][s2][s3].",
                    "Licences differ: some models use Apache 2.0 or MIT and allow almost any use; others use custom licences with conditions on use, naming or very large deployments, so check the licence before building a product on a model [s2][s3][s6].",
                ),
            ),
            "comparing-models": (
                "Comparing Models",
                (
                    "Public leaderboards rank models by human preference votes or by benchmark scores [s5]. Scores move quickly and can be gamed, so test a model on your own task before choosing it [s6].",
                ),
            ),
        },
        sources=(
            _src(
                "s6",
                "https://ml-notes.example/2026/11/choosing-an-open-model",
                "Choosing an open model: licences and leaderboards (demo)",
                "tech_media",
                "2026-12-01",
            ),
        ),
        facts=(
            {
                "text": "Leaderboard scores can be gamed; test on your own task.",
                "source_ids": ["s5", "s6"],
                "quote": "Leaderboard scores can be gamed, so test models on your own task.",
            },
        ),
    ),
)

FUSION = DemoDoc(
    title="Fusion power on the grid / the first fusion plant to deliver net electricity to a public grid",
    every=7,
    sentinel="A fusion power plant delivers net electricity to a public electricity grid",
    rounds=(
        Round(
            today=date(2026, 11, 27),
            summary="Sentinel check: not occurred. Background on ignition, ITER and private plant plans.",
            searches=("fusion power plant grid electricity", "fusion net electricity milestone"),
            sections={
                "status": (
                    "Status",
                    (
                        "Not yet: no fusion plant has delivered net electricity to a public grid. "
                        + DEMO_NOTE,
                    ),
                ),
                "latest-signals": (
                    "Latest Signals",
                    (
                        "In December 2022 the National Ignition Facility produced more fusion energy than its lasers delivered to the target, a scientific milestone that is still far from net electricity [s1].",
                        "ITER, the international experiment in France, is built to study burning plasmas and will not put electricity on a grid [s2].",
                        "Private companies plan pilot plants for the 2030s, and some have signed agreements to sell their future power [s3][s4].",
                    ),
                ),
                "what-would-count": (
                    "What Would Count",
                    (
                        "A plant feeding more electricity into a public grid than it draws, confirmed by the grid operator or an independent body.",
                    ),
                ),
            },
            sources=(
                _src(
                    "s1",
                    "https://lasers.llnl.gov/science/achieving-fusion-ignition",
                    "Achieving fusion ignition — LLNL",
                    "primary",
                    "2026-11-27",
                ),
                _src("s2", "https://www.iter.org/", "ITER", "official", "2026-11-27"),
                _src(
                    "s3",
                    "https://cfs.energy/",
                    "Commonwealth Fusion Systems",
                    "vendor",
                    "2026-11-27",
                ),
                _src("s4", "https://www.helionenergy.com/", "Helion", "vendor", "2026-11-27"),
            ),
            sentinel={
                "status": "not_occurred",
                "evidence": "No plant has delivered net electricity to a grid; pilot plants are planned for the 2030s [s3][s4].",
            },
        ),
    ),
)

ARTEMIS = DemoDoc(  # created by notebook 03 with `%oo new`; only its first cassette ships
    title="Artemis Moon landing / astronauts back on the lunar surface under NASA's Artemis programme",
    every=7,
    sentinel="Astronauts land on the Moon under NASA's Artemis programme",
    shipped=False,
    rounds=(),
    next_round=Round(
        today=DEMO_TODAY,
        summary="Sentinel check: not occurred. The programme's plan, from the uncrewed test flight to the landing mission.",
        searches=("Artemis crewed Moon landing", "Artemis programme missions plan"),
        sections={
            "status": (
                "Status",
                (
                    "Not yet: no astronaut has landed on the Moon under the Artemis programme. "
                    + DEMO_NOTE,
                ),
            ),
            "latest-signals": (
                "Latest Signals",
                (
                    "Artemis I flew an uncrewed Orion capsule around the Moon in late 2022 [s1].",
                    "Artemis II is planned as a crewed flight around the Moon without landing; the first landing is planned for a later mission, using a commercial lander [s1][s2].",
                ),
            ),
            "what-would-count": (
                "What Would Count",
                (
                    "Astronauts standing on the lunar surface during an Artemis mission, confirmed by NASA.",
                ),
            ),
        },
        sources=(
            _src(
                "s1",
                "https://www.nasa.gov/humans-in-space/artemis/",
                "Artemis — NASA",
                "official",
                "2026-12-01",
            ),
            _src(
                "s2",
                "https://en.wikipedia.org/wiki/Artemis_program",
                "Artemis program — Wikipedia",
                "reference",
                "2026-12-01",
            ),
        ),
        sentinel={
            "status": "not_occurred",
            "evidence": "The crewed landing is still planned for a later Artemis mission [s1].",
        },
    ),
)

DOCS: tuple[DemoDoc, ...] = (HEAT_PUMPS, PEROVSKITE, OPEN_MODELS, FUSION, ARTEMIS)
