"""Question-aware sentence selection: answer types, the learned scorer's file, and the shape of an answer."""

from __future__ import annotations

import time

import pytest

from assistant.answer_shape import arrange, compose, lead
from assistant.extractive import usable
from assistant.question_type import classify
from assistant.selection import MODEL_PATH, candidates, load_model
from assistant.sentence_features import (
    CHEAP,
    FULL,
    admits_unknown,
    announces,
    asks_count,
    defines,
    gives_number,
    lists_what_is_asked,
    looks_ahead,
    measures_asked,
    names_another,
    numbers_in,
    points_away,
    repeats_title,
    restates,
    says_how,
    says_what_was_used,
    scored_on,
    states_change,
    type_bonus,
)
from assistant.types import AnswerSentence, Citation, Passage
from ingest.sentences import Sentence


@pytest.mark.parametrize(
    ("question", "kind", "subject"),
    [
        ("What RL algorithm is used to train MiroThinker?", "entity", ""),
        ("Which RL algorithm trains PaSa's Crawler?", "entity", ""),
        ("What is MiroThinker's reward function?", "formula", ""),
        ("What is the Crawler's reward?", "formula", ""),
        ("What is PaSa?", "definition", "PaSa"),
        ("What is GRPO and how do agentic papers modify it?", "definition", "GRPO"),
        ("How many papers does the corpus contain?", "number", ""),
        ("How much disk space does the full corpus take?", "number", ""),
        ("What is the difference between PPO and GRPO?", "other", ""),
        ("How are duplicate versions of the same paper handled?", "other", ""),
        # a measure named with a word or two before it, or asked as "how sensitive"
        ("What average score does RubricEM-8B reach on the long-form benchmarks?", "number", ""),
        ("What success rate does SDAR reach on ALFWorld?", "number", ""),
        ("What gauge factor does the strain sensor achieve?", "number", ""),
        ("How sensitive is the sensor's output current to the supply voltage?", "number", ""),
        ("What significance threshold is used to decide which descriptors matter?", "number", ""),
        # "what does X mean" with where it is meant, and the term in quote marks
        ('What does "deep research" mean in this paper?', "definition", "deep research"),
        ("What does the paper mean by the novelty of a paraphrase?", "definition", "novelty of a paraphrase"),
        ('What is a "gist" in Paper Plain?', "definition", "gist in Paper Plain"),
        ("What is the definition of 'inductive bias'?", "definition", "inductive bias"),
        ("What is PaSa's Crawler?", "definition", "PaSa's Crawler"),  # an apostrophe is not a quote mark
    ],
)
def test_answer_type_of_a_question(question: str, kind: str, subject: str) -> None:
    found = classify(question)
    assert (found.answer, found.subject) == (kind, subject)


def test_numbers_leave_out_years_and_citation_numbers() -> None:
    assert numbers_in("The corpus consists of 81.1M papers.") == 1
    assert numbers_in("As shown by Lo et al. (2020) and in [12], the corpus is large.") == 0


def test_dates_and_the_numbers_inside_names_are_no_quantities() -> None:
    assert numbers_in("The query date of all instances in RealScholarQuery is 2024-10-01.") == 0
    assert numbers_in("The data was collected on May 3, 2023 and on 10/01/2024.") == 0
    assert numbers_in("We monitor two key metrics for the Qwen2.5-7B backbone and GPT-4.") == 0
    assert numbers_in("RealScholarQuery consists of 50 research queries, 2024-10-01.") == 1
    assert numbers_in("SDAR improves over GRPO (+9.4% on ALFWorld) at a rate of 15-20$ per hour.") == 2


def test_a_how_many_question_is_answered_by_a_count_not_a_measurement() -> None:
    question = "How many participants took part in the CiteSee lab study?"
    assert gives_number(question, "We recruited a total of ten participants across three universities.")
    assert gives_number(question, "A field deployment study (N=6) with real-world literature review tasks.")
    assert not gives_number(question, "Before the study, we walked through all the features of CiteSee in 10 minutes.")
    assert not gives_number(question, "Each participant installed CiteSee for one to two weeks and was paid $35.")
    assert gives_number("How many hours did the annotation take?", "It took 3 hours.")  # the unit asked for
    assert gives_number("How much were the annotators paid?", "They were paid $35 per hour.")  # not a count
    kind = classify(question)
    assert type_bonus(kind, "We recruited 12 participants.", question) > type_bonus(
        kind, "It took 10 minutes.", question
    )


def test_a_number_that_points_to_a_part_of_the_paper_is_no_quantity() -> None:
    assert numbers_in("The results on the sensor are presented and discussed in Section 3.") == 0
    assert numbers_in("See Figures 2 and 3, Table 1 and Eq. (4); we use (1) a model and (2) data.") == 0
    assert numbers_in("The sensor draws 145.45 µW, as Table 2 shows.") == 1


def test_a_count_written_as_a_word_counts_for_a_how_many_question() -> None:
    recruited = "Six participants were recruited for the field deployment."
    assert numbers_in(recruited) == 0 and numbers_in(recruited, words=True) == 1
    assert numbers_in("S2ORC holds three times more papers than PMC.", words=True) == 0  # a multiple, no count
    assert asks_count("How many people took part in the study?")
    assert not asks_count("How long are the summaries at each granularity level?")
    kind = classify("How many people participated in the field deployment?")
    question = "How many people participated in the field deployment?"
    assert type_bonus(kind, recruited, question) > type_bonus(kind, "We ran a field deployment of CiteSee.", question)


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("How much power does the sensor consume?", "The sensor consumes 145.45 µW at 1.2 V."),
        ("How many people participated in the deployment?", "Six participants were recruited."),
    ],
)
def test_a_number_question_leads_with_a_quantity_not_a_section_number(question: str, first: str) -> None:
    pointer = "The measurements on the sensor and the deployment are discussed in Section 3."
    assert lead(question, [_Pick(0, pointer, 0), _Pick(1, first, 0)]) == 1


def test_shipped_model_matches_the_features_and_names_its_data() -> None:
    model = load_model()
    assert model.cheap.features == CHEAP and model.full.features == FULL
    assert len(model.full.coef) == len(FULL)
    assert "SciFact" in MODEL_PATH.read_text(encoding="utf-8")


def _passage(text: str, number: int = 1, paper: str = "p1") -> Passage:
    return Passage(f"{paper}#{number}", paper, "T", [], 2020, None, number, number, text, number=number)


def test_a_measure_asked_with_a_modifier_nudges_up_the_sentence_with_the_number() -> None:
    kind = classify("What success rate does SDAR reach on ALFWorld?")
    with_number = "SDAR reaches a success rate of 87.3% on ALFWorld, above every baseline."
    without = "We evaluate the success rate of SDAR on ALFWorld and compare it with the baselines."
    assert type_bonus(kind, with_number) > type_bonus(kind, without)


def test_the_number_given_on_the_asked_benchmark_outranks_a_number_on_another() -> None:
    question = "What score does MiroThinker-H1 achieve on BrowseComp?"
    kind = classify(question)
    on_it = "MiroThinker-H1 achieves 88.2 and 84.4 on BrowseComp [8] and BrowseComp-ZH [9], respectively."
    in_brackets = "The scores of MiroThinker-H1 are high on BrowseComp (88.2) and GAIA (79.1)."
    elsewhere = "Furthermore, MiroThinker-H1 achieves 61.3 on SEAL-0 [43] and scores 80.6 on DeepSearchQA [40]."
    named_only = "BrowseComp [8] asks for hard-to-find facts and took 2 annotators 3 hours on each question."
    assert scored_on(question, on_it) and scored_on(question, in_brackets)
    assert not scored_on(question, elsewhere) and not scored_on(question, "The benchmark holds 1,266 questions.")
    assert type_bonus(kind, on_it, question) > type_bonus(kind, elsewhere, question)
    # "[8]" is no score: the benchmark named beside other numbers earns nothing over scores on other benchmarks
    assert type_bonus(kind, named_only, question) <= type_bonus(kind, elsewhere, question)
    assert not scored_on("How many papers does the corpus contain?", on_it)  # no benchmark asked about


def test_a_which_question_prefers_the_sentence_that_says_what_was_used() -> None:
    # the bench's "Which parser is used to obtain the semantic dependency graphs?" (docs/benchmarks.md)
    question = "Which benchmarks are used to evaluate SDAR?"
    kind = classify(question)
    used = "We validated our method on ALFWorld (Shridhar et al., 2020), WebShop and Search-QA."
    claim = "SDAR outperforms the baselines on ALFWorld, WebShop and Search-QA by a wide margin."
    assert says_what_was_used(used) and not says_what_was_used(claim)
    assert type_bonus(kind, used, question) > type_bonus(kind, claim, question)
    for text in (
        "We initialize our models from the Qwen3 MoE checkpoints.",
        "The AqSolDB curated database was used to train the RNN model.",
        "Based on the open-source Qwen3 MoE models, MiroThinker-1.7 is trained in four stages.",
    ):
        assert says_what_was_used(text), text
    assert not says_what_was_used("Through our experiments, we arrive at a critical insight.")
    # only a "which ..." question is nudged so
    number = "How many benchmarks are used to evaluate SDAR?"
    assert type_bonus(classify(number), used, number) == type_bonus(classify(number), claim, number)


def test_a_question_that_asks_for_several_prefers_the_sentence_that_lists_them() -> None:
    # the 15-paper set's CAST paper (bench_more_pdfs): its lead was the results claim
    question = "Which baselines is CAST compared against?"
    kind = classify(question)
    listed = "For trained baselines, we compare against GRPO (Shao et al., 2024), GSPO (Zheng et al., 2025), and DAPO."
    claim = "CAST achieves the best performance, consistently outperforming outcome-only RLVR baselines and GiGPO."
    assert lists_what_is_asked(question, listed) and not lists_what_is_asked(question, claim)
    assert type_bonus(kind, listed, question) > type_bonus(kind, claim, question)
    # one thing asked for, or names the question gives itself, are no list
    assert not lists_what_is_asked("Which RL algorithm does CAST build on?", listed)
    assert not lists_what_is_asked("Which baselines do GRPO, GSPO and DAPO beat?", listed)


def test_a_road_map_sentence_that_points_to_a_section_is_no_answer() -> None:
    question = "How does the corpus compare in size with other academic text corpora?"
    kind = classify(question)
    road_map = "Finally, we compare S2ORC with other publicly-available academic text corpora (§7)."
    answer = "S2ORC contains three times more full text papers than PubMed Central, the next largest corpus."
    assert points_away(road_map) and points_away("In Section 3, we describe the pipeline.")
    assert type_bonus(kind, road_map, question) < type_bonus(kind, answer, question)
    # a number beside the pointer answers: "§2.6" is not that number
    assert not points_away("We resolve a total 380.5M citation links between papers (§2.6).")
    assert points_away("Results are reported in Table 4.") and not points_away("Accuracy is 91% (Table 4).")


def test_a_sentence_that_announces_what_comes_is_no_answer() -> None:
    question = "What is Retrieval Augmented Prompt Tuning (RAPT)?"
    kind = classify(question)
    announced = (
        "In this section, we introduce our proposed approaches: Retrieval Augmented Prompt Tuning (RAPT) and NCRAPT."
    )
    defined = (
        "In this section, we introduce our first approach, RAPT, which is a synergy of a retriever and prompt tuning."
    )
    assert announces(announced) and not announces(defined)
    assert type_bonus(kind, announced, question) < type_bonus(kind, defined, question)
    assert announces("Finally, we discuss how a two-step process of explaining predictions can uncover relationships.")
    assert announces("The study answers the following questions: RQ1-How did participants use Paper Plain's features?")
    # what follows the colon answers, or a number does
    assert not announces("Paper Plain was designed with the following features: (1) Term Definitions from the web.")
    assert not announces("In this section, we describe the 3 datasets.")
    assert not announces("We suggest the following attributes can be used to evaluate explanations.")


def test_future_work_is_no_answer_unless_what_comes_next_is_asked() -> None:
    question = "How was the training data for OpenScholar-8B created?"
    future = "Future work can explore training that further improves OpenScholar-8B."
    answer = (
        "We generate synthetic queries from sampled datastore passages and use the outputs to train OpenScholar-8B."
    )
    assert looks_ahead(question, future) and not looks_ahead(question, answer)
    assert type_bonus(classify(question), future, question) < type_bonus(classify(question), answer, question)
    assert not looks_ahead("What future work do the authors plan?", future)
    assert looks_ahead("What are the limitations of OpenScholar?", future)  # what is missing is not what comes next


def test_what_no_one_knows_is_no_answer_unless_the_gap_is_asked() -> None:
    question = "How are rewards designed for web search agents?"
    gap = (
        "While the use of RL for training search agents is promising, the optimal design of such agents remains not "
        "fully understood."
    )
    answer = "To guide this process, we design a dense, instructive process reward function."
    assert admits_unknown(question, gap) and not admits_unknown(question, answer)
    assert type_bonus(classify(question), gap, question) < type_bonus(classify(question), answer, question)
    for said in (
        "Little is known about how agents plan.",
        "This has rarely been studied.",
        "It remains an open question.",
    ):
        assert admits_unknown(question, said), said
    assert not admits_unknown("What gap in prior work does the study address?", gap)
    assert not admits_unknown("Why is a new benchmark needed?", gap)


def test_a_sentence_about_a_sibling_of_the_asked_name_is_about_something_else() -> None:
    question = "How many queries does RealScholarQuery contain?"
    other = "We select 200 queries from the AutoScholarQuery development set."
    answer = "We constructed RealScholarQuery, a test dataset consisting of 50 real-world research queries."
    assert names_another(question, other) and not names_another(question, answer)
    assert type_bonus(classify(question), other, question) < type_bonus(classify(question), answer, question)
    assert names_another("What is GRPO?", "We propose SS-GRPO, which weighs stages.")
    # the asked name with a version, an unrelated name, or no name at all
    assert not names_another("What does MiroThinker score?", "MiroThinker-v1.0-72B reaches 81.9% on GAIA.")
    assert not names_another("Which RL algorithm does CAST build on?", "We train with DAPO on Sokoban.")
    assert not names_another("How many queries are there?", "AutoScholarQuery has 33,551 queries.")


def test_a_how_question_is_answered_by_the_means() -> None:
    question = "How are bibliography entries linked to papers in the corpus?"
    means = "For linking, we score each bibliography entry and paper cluster pair using a similarity score of titles."
    claim = (
        "Each bibliography entry in both GROBID and LATEX parses is linked to the most similar papers in the corpus."
    )
    assert says_how(question, means) and not says_how(question, claim)
    assert type_bonus(classify(question), means, question) > type_bonus(classify(question), claim, question)
    assert says_how("How are summaries split into units?", "Hence, we segment sentences on conjunctions.")
    # how something compares or was evaluated asks for a result
    assert not says_how(
        "How was the quality of the extraction evaluated?", "They evaluate it using a corpus of 5k papers."
    )


def test_how_much_something_improves_is_answered_by_the_change() -> None:
    question = "How much more efficient is MiroThinker-1.7 than the previous MiroThinker version?"
    change = "MiroThinker-1.7-mini reaches 16.7% better performance with about 43.0% less rounds than MiroThinker-1.5."
    setup = "We compare MiroThinker-1.5 and 1.7-mini under identical parameter budgets (30B) across five benchmarks."
    assert states_change(question, change) and not states_change(question, setup)
    assert type_bonus(classify(question), change, question) > type_bonus(classify(question), setup, question)
    assert states_change("How much does CAST improve?", "The signal lifts the ID average from 44.7 to 62.1.")
    assert states_change("How much does SDAR improve over GRPO?", "SDAR gains over GRPO (+9.4% on ALFWorld).")
    assert not states_change("How many steps does CAST train for?", "It lifts the average from 44.7 to 62.1.")


def test_the_number_of_the_asked_measure_outranks_a_number_of_another() -> None:
    question = "What precision does PaSa's Selector reach?"
    asked = "Lastly, the Selector's precision reaches 95%, confirming its use as a reward model."
    other = "PaSa-7b surpasses PaSa-GPT-4o by 11.12% in recall, with similar precision."  # 11.12% is recall
    assert measures_asked(question, asked) and not measures_asked(question, other)
    assert type_bonus(classify(question), asked, question) > type_bonus(classify(question), other, question)
    power = "How much power does the sensor consume?"
    assert measures_asked(power, "This is counterbalanced by the larger power consumption of 145.45 µW.")
    assert not measures_asked(power, "Optical sensors come with high power consumption.")  # no number
    # the paper's own name is beside every number: it names no measure
    assert not measures_asked(question, "PaSa reaches 95 on the test set.")


def test_a_piece_of_the_papers_title_is_no_answer() -> None:
    title = (
        "PaperMage: A Unified Toolkit for Processing, Representing, and Manipulating Visually-Rich Scientific Documents"
    )
    assert repeats_title("PaperMage: A Unified Toolkit for Processing, Representing, and", title)
    assert not repeats_title("PaperMage is a unified toolkit for processing scientific documents.", title)
    assert not repeats_title("PaperMage", title)  # a name alone is left to the other rules


def test_a_sentence_made_only_of_the_questions_words_adds_nothing() -> None:
    question = "What is Retrieval Augmented Prompt Tuning (RAPT)?"
    heading = "Retrieval Augmented Prompt Tuning (RAPT)"
    answer = "RAPT augments prompt tuning with examples retrieved by kNN search."
    assert restates(question, heading) and not restates(question, answer)
    assert type_bonus(classify(question), heading, question) < type_bonus(classify(question), answer, question)


@pytest.mark.parametrize(
    ("question", "text", "first"),
    [
        (
            "How many papers does the corpus contain?",
            "The corpus contains papers from many disciplines and publishers. "
            "The resulting corpus consists of 81.1M papers after filtering.",
            "The resulting corpus",
        ),
        (
            "What is the reward function?",
            "Figure 3: Training reward across training steps for the reward model. "
            "The reward is the sum of a format reward and an accuracy reward given for a correct final answer.",
            "The reward is",
        ),
    ],
)
def test_learned_scorer_ranks_the_answering_sentence_first(question: str, text: str, first: str) -> None:
    _, found = candidates(question, [_passage(text)], usable)
    assert found[0].sentence.text.startswith(first)


def test_the_defining_sentence_of_a_what_is_question_is_nudged_up_and_a_caption_down() -> None:
    kind = classify("What is PaSa?")
    assert defines("We introduce PaSa, an advanced paper search agent powered by large language models.", "PaSa")
    assert not defines("PaSa outperforms strong baselines on every benchmark we tried.", "PaSa")
    later = "In addition, the LaTeX subset of S2ORC captures structure omitted by earlier work, and a 2020 release of"
    assert not defines(later + " that work is an update which now includes full text.", "S2ORC")  # "is an": not S2ORC
    # "is the" before the name says what something else is
    assert not defines("The first circuit is the β-multiplier with resistor (βR) displayed in Fig.", "β-multiplier")
    assert defines("A search agent called PaSa reads papers.", "PaSa")
    assert type_bonus(kind, "PaSa is an agent that searches for papers.") > 0
    assert type_bonus(kind, "Figure 2: PaSa is an agent that searches for papers.") < type_bonus(
        kind, "PaSa is an agent that searches for papers."
    )


def test_a_common_noun_is_defined_in_the_plural_or_by_what_it_represents() -> None:
    kind = classify("What is a semantic dependency graph?")
    plural = "Semantic dependency graphs represent predicate-argument relationships between content words."
    notation = "We use the graphs of every sentence in the training set to train the encoder."
    assert defines(plural, kind.subject)
    assert not defines(notation, kind.subject)
    assert type_bonus(kind, plural) > type_bonus(kind, notation)
    assert defines(
        "A molecular counterfactual is one with a minimal distance from the base molecule.", "molecular counterfactual"
    )
    assert not defines("Semantic dependency graphing tools are slow.", "semantic dependency graph")  # another word


def test_a_sentence_that_asks_a_question_is_nudged_down() -> None:
    kind = classify("Which alignment method works best for highlighting source sentences?")
    assert type_bonus(kind, "What is the best highlighting algorithm?") < 0
    assert type_bonus(kind, "Q3: Is it helpful to align summary units with the source?") < 0
    assert type_bonus(kind, "RQ2: Can we reduce annotator workload by partially annotating a summary?") < 0
    # a figure's labels run into the question it shows (LongEval's Figure 1, as the PDF's text reads it)
    assert type_bonus(kind, "COARSE-grained How well is the summary supported by the source?") < 0
    assert type_bonus(kind, "Yes No FINE-grained Q3: Is it helpful to automatically align summary units?") < 0
    statement = "We present LONGEVAL, which addresses the following challenges: (1) How can we achieve agreement?"
    assert type_bonus(kind, statement) == 0  # a statement that ends with the question it takes on
    assert type_bonus(kind, "SuperPAL performs best (0.61 recall@3 vs the next best 0.47).") == 0
    assert type_bonus(kind, "Is this the best method? We find that SuperPAL performs best.") == 0  # it goes on


def test_scoring_a_question_takes_milliseconds() -> None:
    text = " ".join(f"Sentence {i} says the corpus holds {i} million documents of text." for i in range(15))
    sources = [_passage(text, n) for n in range(1, 9)]
    candidates("How many papers does the corpus contain?", sources, usable)  # warm: the model file is read once
    started = time.perf_counter()
    _, found = candidates("How many papers does the corpus contain?", sources, usable)
    assert len(found) == 120 and time.perf_counter() - started < 0.25  # 120 sentences; a few ms unloaded


class _Pick:
    def __init__(self, source: int, text: str, start: int) -> None:
        self.source, self.sentence = source, Sentence(text, start, start + len(text))


def test_number_question_leads_with_the_sentence_that_shows_the_number() -> None:
    picked = [_Pick(0, "The corpus is large and diverse.", 0), _Pick(1, "It holds 81.1M papers.", 0)]
    assert lead("How many papers are in the corpus?", picked) == 1
    assert lead("What is in the corpus?", picked) == 0


def test_arrange_groups_sentences_by_paper_after_the_lead() -> None:
    a1, b1, a2 = _Pick(2, "A later.", 50), _Pick(1, "B.", 0), _Pick(0, "A first.", 0)
    ordered = arrange("What is it?", [a1, b1, a2], papers=["pa", "pb", "pa"])
    assert ordered == [a1, a2, b1]


def _sentence(text: str, number: int) -> AnswerSentence:
    citation = Citation(number, f"c{number}", "p", 1, 1, 0, len(text), text, 0.5)
    return AnswerSentence(text, [citation], 0.5)


def test_a_run_of_sentences_from_one_passage_names_it_once() -> None:
    text = compose([_sentence("One.", 1), _sentence("Two.", 1), _sentence("Three.", 2)])
    assert text == "One. Two. [1] Three. [2]"


def test_a_sentence_whose_neighbour_also_answers_outranks_a_lone_one_slightly_better() -> None:
    from assistant.extractive import _Candidate, _with_neighbours

    def cand(source: int, start: int, score: float) -> _Candidate:
        return _Candidate(source, Sentence(f"sentence {source}.{start}", start, start + 10), 0.0, score=score)

    lone, weak_after = cand(0, 0, 0.60), cand(0, 20, 0.20)  # its neighbour is below the floor: lends nothing
    leads, continues = cand(1, 0, 0.58), cand(1, 20, 0.55)  # evidence over two sentences
    elsewhere = cand(2, 0, 0.90)  # another passage's sentence lends nothing to passage 1
    cands = [lone, weak_after, leads, continues, elsewhere]
    for _ in range(2):  # ranking again gives the same ranks
        _with_neighbours(cands)
        assert lone.rank == pytest.approx(0.60)
        assert leads.rank == pytest.approx(0.58 + 0.2 * (0.55 - 0.3))
        assert elsewhere.rank == pytest.approx(0.90)
        assert sorted(cands, key=lambda c: -c.rank)[:2] == [elsewhere, leads]


def test_a_which_question_nudges_up_a_name_it_does_not_give() -> None:
    question = "Which RL algorithm serves as SDAR's optimization backbone?"
    kind = classify(question)
    answer = "Our method is an auxiliary objective on top of a standard GRPO loss."
    assert type_bonus(kind, answer, question) > type_bonus(kind, answer) == 0  # without the question: no nudge
    assert type_bonus(kind, "SDAR adapts its optimization throughout training.", question) == 0  # its own name
    other = classify("How does SDAR adapt during training?")
    assert type_bonus(other, answer, "How does SDAR adapt during training?") == 0  # not a "which" question
