"""The web page in headless Chromium: topic page, J/K, streamed cited answers, passages, Ask PDF, escaping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from papertalk.demo import DEMO_TOPIC
from storage.topics import slugify
from tests.conftest import LONGEVAL_PDF
from tests.web.conftest import HOSTILE_ID, HOSTILE_TITLE

pytestmark = pytest.mark.slow
SLUG = slugify(DEMO_TOPIC)


def wait_for(driver: Any, css: str, timeout: float = 120) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(ec.visibility_of_element_located((By.CSS_SELECTOR, css)))


def css(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(driver.find_elements(By.CSS_SELECTOR, selector))


def open_page(driver: Any, url: str, ready: str) -> None:
    driver.get("about:blank")  # a full load: a new hash alone keeps the last page's elements until it redraws
    driver.get(url)
    wait_for(driver, ready)


def ask(driver: Any, question: str) -> Any:
    """Type a question into the page's ask panel; returns the answer box once the final answer is drawn."""
    box = wait_for(driver, "#ask textarea")
    box.send_keys(question)
    css(driver, "#ask button[type=submit]")[0].click()
    return wait_for(driver, "#ask .turn-answer .answer")


def save(driver: Any, shots: Path | None, name: str) -> None:
    if shots is not None:
        driver.save_screenshot(str(shots / name))


def topic_json(server: str) -> dict[str, Any]:
    import json
    import urllib.request

    with urllib.request.urlopen(f"{server}/api/topics/{SLUG}") as response:
        data: dict[str, Any] = json.loads(response.read())
        return data


def test_topic_page_shows_momentum_chart_overview_related_and_latest_papers(
    browser: Any, server: str, shots: Path | None
) -> None:
    open_page(browser, f"{server}/#/topic/{SLUG}", ".momentum-line")
    assert css(browser, "h1")[0].text == DEMO_TOPIC
    assert "RL: Reinforcement Learning" in css(browser, ".abbreviations")[0].text
    assert "in the last four weeks" in css(browser, ".momentum-line")[0].text
    assert "historical corpus" in css(browser, ".momentum-note")[0].text  # the demo corpus ended long ago
    assert len(css(browser, "svg.chart rect.bar")) == 13
    assert any(t.text.startswith("Week of") for t in css(browser, "svg.chart text"))
    cites = css(browser, ".overview button.cite")
    assert cites and cites[0].text == "[1]"
    numbers = {int(c.get_attribute("data-number")) for c in cites}
    assert numbers == set(range(1, len(css(browser, ".overview ol.sources li.place")) + 1))
    cited = [li.get_attribute("data-paper") for li in css(browser, ".overview ol.sources li.paper-source")]
    assert cited and len(cited) == len(set(cited))  # each paper once, its places under it
    related = css(browser, ".related li")
    assert related and all(float(css(r, ".strength")[0].text) > 0 for r in related)
    papers = css(browser, "#latest li.paper")
    assert len(papers) >= 10 and all(css(item, ".tag") for item in papers)
    follow = css(browser, "button.follow")[0]
    assert follow.text == "Follow"
    save(browser, shots, "topic-page.png")
    follow.click()
    wait_for(browser, "button.follow[aria-pressed=true]")
    assert topic_json(server)["followed"] is True
    follow.click()
    wait_for(browser, "button.follow[aria-pressed=false]")
    assert topic_json(server)["followed"] is False


def test_j_and_k_move_through_papers_and_enter_opens_one(browser: Any, server: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    open_page(browser, f"{server}/#/topic/{SLUG}", "#latest li.paper")
    keys = ActionChains(browser)
    keys.send_keys("j").send_keys("j").send_keys("j").send_keys("k").perform()
    items = css(browser, "#latest li.paper")
    selected = [i for i, item in enumerate(items) if "selected" in item.get_attribute("class")]
    assert selected == [1]
    paper_id = items[1].get_attribute("data-paper-id")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait_for(browser, "article.paper-page h1")
    assert browser.current_url.endswith(f"#/paper/{paper_id}")


def test_topic_question_streams_a_cited_answer_whose_citation_opens_the_passage(
    browser: Any, server: str, shots: Path | None
) -> None:
    open_page(browser, f"{server}/#/topic/{SLUG}", "#ask textarea")
    browser.execute_script(
        "window.__deltas = 0; const seen = new MutationObserver(() => {"
        " if (document.querySelector('#ask .streaming')) window.__deltas++; });"
        " seen.observe(document.getElementById('ask'), {childList: true, subtree: true, characterData: true});"
    )
    answer = ask(browser, "How are large language model agents trained with reinforcement learning?")
    assert browser.execute_script("return window.__deltas") >= 1  # text arrived before the final answer
    cites = css(browser, "#ask .answer button.cite")
    assert cites, answer.text
    # the papers the answer cites are listed first; those retrieved and not cited fold under a summary
    numbers = {c.get_attribute("data-number") for c in cites}
    listed = css(browser, "#ask .answer ol.sources:not(.uncited) > li.paper-source")
    assert listed and all(css(li, "li.place.cited") for li in listed)
    assert {li.get_attribute("data-number") for li in css(browser, "#ask .answer li.place.cited")} == numbers
    folded = css(browser, "#ask .answer details.more-sources ol.uncited > li.paper-source")
    assert not any(css(li, "li.place.cited") for li in folded)
    if folded:
        summary = css(browser, "#ask .answer details.more-sources summary")[0].text
        assert summary.startswith(f"{len(folded)} more paper"), summary
    cites[0].click()
    panel = wait_for(browser, "#passage")
    marked = css(browser, "#passage-text mark")
    assert marked and marked[0].text.strip()
    assert marked[0].text.strip()[:20] in css(browser, "#passage-text")[0].text
    assert css(browser, "#passage-title")[0].text
    assert panel.is_displayed()
    save(browser, shots, "answer-with-citations.png")


def test_a_paper_named_outside_the_topic_is_linked_and_its_page_asks_it(browser: Any, server: str) -> None:
    import json
    import urllib.request

    with urllib.request.urlopen(f"{server}/api/papers?topic={SLUG}&limit=200") as response:
        members = json.loads(response.read())["papers"]
    assert members and not any(p["title"].startswith("S2ORC") for p in members)  # the PDF is not in the topic
    open_page(browser, f"{server}/#/topic/{SLUG}", "#ask textarea")
    answer = ask(browser, "How many full texts does S2ORC contain?")
    assert "nothing in this scope mentions S2ORC" in css(answer, ".abstained")[0].text
    (link,) = css(answer, ".elsewhere a.elsewhere-link")
    title = link.text
    assert title.startswith("S2ORC") and "#/paper/" in (link.get_attribute("href") or "")
    assert not css(answer, "button.cite")  # nothing quoted from the topic's other papers
    css(answer, "button.ask-everywhere")[0].click()  # the same question over every paper, under the answer
    everywhere = wait_for(browser, "#ask .everywhere .answer")
    assert css(everywhere, "button.cite") and title in everywhere.text  # answered from that paper, cited
    assert len(css(browser, "#ask .turn")) == 1  # not a turn of the topic's chat
    link.click()
    assert wait_for(browser, "article.paper-page h1").text == title
    answer = ask(browser, "How many full texts does S2ORC contain?")
    assert css(answer, "button.cite") and not css(answer, ".elsewhere")  # asked of the paper, it answers


def test_upload_a_pdf_then_ask_it_a_question(browser: Any, server: str, shots: Path | None) -> None:
    open_page(browser, f"{server}/#/upload", "input[type=file]")
    css(browser, "input[type=file]")[0].send_keys(str(LONGEVAL_PDF))
    css(browser, ".upload-form button")[0].click()
    wait_for(browser, "article.paper-page h1", timeout=240)
    assert "#/paper/" in browser.current_url
    answer = ask(browser, "Which datasets are used in the annotation studies?")
    cites = css(browser, "#ask .answer button.cite")
    assert cites, answer.text
    cites[0].click()
    wait_for(browser, "#passage-text")
    pdf_links = [
        a.get_attribute("href")
        for a in css(browser, "#passage-links a")
        if "/pdf#page=" in (a.get_attribute("href") or "")
    ]
    assert pdf_links, "a cited passage of an uploaded PDF links to the PDF at its page"
    save(browser, shots, "ask-pdf.png")
    css(browser, "#passage-close")[0].click()
    css(browser, "button.summarize")[0].click()
    wait_for(browser, "#summary .summary button.cite", timeout=240)
    pages = [s.text.strip() for s in css(browser, "#summary ol.sources li.place span.muted")]
    assert pages and all(p.startswith(("p.", "pp.")) for p in pages), pages  # each cited with its pages


def test_a_title_with_markup_renders_as_text(browser: Any, server: str) -> None:
    open_page(browser, f"{server}/#/paper/{HOSTILE_ID}", "article.paper-page h1")
    from selenium.common.exceptions import NoAlertPresentException

    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018
    assert css(browser, "article.paper-page h1")[0].text == HOSTILE_TITLE
    assert not css(browser, "#view script") and not css(browser, "#view img") and not css(browser, "#view b")
    assert "<img src=x" in css(browser, ".abstract")[0].text


def test_the_page_is_readable_at_phone_width(server: str, shots: Path | None) -> None:
    from tests.web.conftest import make_driver

    phone = make_driver(390, 844)
    phone.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
    )
    try:
        open_page(phone, f"{server}/#/topic/{SLUG}", "#latest li.paper")
        overflow = phone.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page is {overflow}px wider than a phone screen"
        save(phone, shots, "topic-page-phone.png")
    finally:
        phone.quit()
