import numpy as np
import pytest

from storage.embeddings import MODEL_DIM, LocalMiniLMEmbedding, WordPieceCounter, _verify_model, load_tokenizer


def test_tokenizer_truncates_at_256_and_pads_to_the_longest_in_a_batch() -> None:
    tok = load_tokenizer()
    long_text = "reinforcement " * 400
    encs = tok.encode_batch(["short text", long_text])
    assert len(encs[1].ids) == 256  # not the 128 the shipped file is configured for
    assert len(encs[0].ids) == 256 and sum(encs[0].attention_mask) == 4  # [CLS] short text [SEP]
    alone = tok.encode("short text")
    assert len(alone.ids) == 4  # no fixed padding to 128


def test_embeddings_are_unit_length_and_semantically_ordered() -> None:
    model = LocalMiniLMEmbedding(batch_size=2)
    texts = [
        "policy gradient for language model agents",
        "a recipe for lemon cake",
        "reinforcement learning trains LLM agents with rewards",
    ]
    vecs = model.embed_texts(texts)
    assert vecs.shape == (3, MODEL_DIM)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert vecs[0] @ vecs[2] > vecs[0] @ vecs[1] + 0.2
    # batched (sorted by length, padded) and one-at-a-time give the same vectors
    single = np.array([model.get_text_embedding(t) for t in texts])
    assert np.allclose(vecs, single, atol=1e-4)


def test_batches_group_texts_of_similar_length_in_word_pieces() -> None:
    model = LocalMiniLMEmbedding(batch_size=2)
    wordy = ["the cat " * 20, "and the dog " * 20]  # 160 and 240 characters, few pieces
    dense = ["x9q7 zk3v " * 12, "p4w8 jy6b " * 20]  # 120 and 200 characters, many pieces
    counts = model._model.piece_counts(wordy + dense)
    assert max(counts[:2]) < min(counts[2:])  # by characters they interleave, by pieces they do not
    batches: list[list[str]] = []
    embed = model._model.embed

    def recording_embed(batch: list[str], short: bool = False) -> np.ndarray:
        batches.append(batch)
        return embed(batch, short)

    model._model.embed = recording_embed  # type: ignore[method-assign]
    vecs = model.embed_texts([wordy[0], dense[0], wordy[1], dense[1]])
    assert sorted(map(sorted, batches)) == sorted([sorted(wordy), sorted(dense)])
    assert np.allclose(vecs[1], embed([dense[0]])[0], atol=1e-4)  # results still in input order


def test_model_file_with_wrong_checksum_is_refused(tmp_path) -> None:
    from papertalk.errors import ConfigurationError

    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    with pytest.raises(ConfigurationError, match="sha256"):
        _verify_model(fake)


def test_word_piece_counter_truncates_on_piece_boundaries() -> None:
    counter = WordPieceCounter()
    text = "Self-Distilled Agentic Reinforcement Learning for multi-turn tool use"
    cut = counter.truncate(text, 5)
    assert text.startswith(cut) and counter.count(cut) == 5
    assert counter.truncate(text, 1000) == text
