"""The viewer's shards: text escaped, fact mentions marked, links to where each item is shown."""

import datetime as dt

from warehouse.viewer import shards

FACTS = {"f1": {"subject": "Maya", "attribute": "city", "value": "Lisbon"},
         "f2": {"subject": "Maya", "attribute": "employer", "value": "Casa <Verde>"}}


def test_a_mention_is_marked_with_its_fact_and_mode_and_text_is_escaped():
    text = "I moved to Lisbon & now I work at Casa <Verde>, near Lisbon."
    html = shards.marked(text, [{"span": "Lisbon", "fact_id": "f1", "mode": "explicit"},
                                {"span": "Casa <Verde>", "fact_id": "f2", "mode": "paraphrased"},
                                {"span": "Porto", "fact_id": "f1", "mode": "implied"}], FACTS)
    assert html.count("<mark") == 2 and "&amp; now" in html and "<Verde>" not in html
    assert '<mark class="m-explicit" title="Maya: city = Lisbon (explicit)" data-fact="f1">Lisbon</mark>' in html
    assert "Casa &lt;Verde&gt;</mark>" in html and html.endswith("near Lisbon.")  # the first Lisbon only


def test_two_mentions_of_one_span_mark_two_occurrences():
    html = shards.marked("Lisbon, then Lisbon again", [{"span": "Lisbon", "fact_id": "f1", "mode": "explicit"},
                                                       {"span": "Lisbon", "fact_id": "f1", "mode": "reference"}],
                         FACTS)
    assert html.count("<mark") == 2 and "m-reference" in html


def test_links_point_at_the_month_page_and_the_item():
    turn = {"turn_id": "p0001-s0003-t02", "timestamp": dt.datetime(2024, 3, 5, 9, tzinfo=dt.UTC)}
    assert shards.link_turn("p0001", turn) == "persona/p0001/sessions.html?m=2024-03#p0001-s0003-t02"
    assert shards.link_chunk("p0001", "p0001-d0002", "p0001-d0002-c01") == \
        "persona/p0001/documents.html#p0001-d0002-c01"
    assert shards.plain("<h2>Notes &amp; steps</h2><p>Rain.</p>", "html") == "Notes & stepsRain."
