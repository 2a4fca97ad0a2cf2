"""Typed settings: one root with nested groups, read from `PAPERTALK_*` variables and `.env`.

Nested fields use `__`, e.g. `PAPERTALK_CHROMA__HOST=localhost`. The standard `OPENAI_API_KEY` and
`OPENAI_BASE_URL` variables are honoured for the OpenAI-compatible backends, from the environment or `.env`.
Building `Settings` raises `ConfigurationError` with one line naming the variable at fault (a misspelt
`PAPERTALK_` name, a value out of range, an unreadable `.env` line), which the CLI prints as is.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings.exceptions import SettingsError

from papertalk.errors import ConfigurationError
from papertalk.settings_check import check_names, describe_invalid, describe_unparsable, read_dotenv


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "papertalk"


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmbeddingSettings(_Group):
    backend: Literal["local", "openai"] = Field(
        "local",
        description="`local`: the bundled int8 ONNX all-MiniLM-L6-v2 (offline). "
        "`openai`: an OpenAI-compatible embeddings endpoint.",
    )
    openai_model: str = Field("text-embedding-3-small", description="Model name for the `openai` backend.")
    batch_size: int = Field(
        1,
        ge=1,
        le=1024,
        description="Texts per call of the local model. 1 is fastest per CPU-second and smallest in memory on CPU "
        "(no padding; see docs/benchmarks.md).",
    )
    openai_batch_size: int = Field(64, ge=1, le=2048, description="Texts per request to an embeddings API.")
    threads: int = Field(0, ge=0, description="onnxruntime intra-op threads; 0 lets it use every core.")
    timeout_s: float = Field(
        60.0, gt=0, description="Seconds to wait for an embeddings API per request (`openai` backend)."
    )
    max_retries: int = Field(
        2, ge=0, le=10, description="Retries on transient embeddings API errors (`openai` backend)."
    )
    sentence_vectors: bool | None = Field(
        None,
        description="Embed every sentence of each chunk at ingest too (about twice the embedding work), so that "
        "offline answers score every retrieved sentence and embed none at question time. Unset: on with the `local` "
        "model, off with an embeddings API (it would double the calls).",
    )

    @property
    def stores_sentences(self) -> bool:
        """Whether ingest embeds and stores every sentence (`sentence_vectors`, or by backend when unset)."""
        return self.backend == "local" if self.sentence_vectors is None else self.sentence_vectors


class ChromaSettings(_Group):
    mode: Literal["local", "http"] = Field(
        "local",
        description="`local`: embedded Chroma (PersistentClient) in the data directory. "
        "`http`: a Chroma server at host:port (`chroma run`, or a managed Chroma).",
    )
    timeout_s: float = Field(60.0, gt=0, description="Seconds to wait for the Chroma server (`http` mode).")
    host: str | None = Field(None, description="Chroma server host; setting it selects `http` mode.")
    port: int = Field(8000, description="Chroma server port.")
    ssl: bool = Field(False, description="Use https to reach the Chroma server.")
    token: SecretStr | None = Field(
        None, description="Token for a Chroma server that requires one, sent as `Authorization: Bearer TOKEN`."
    )
    collection: str = Field("papertalk_chunks", description="Collection that holds the chunk vectors.")

    @property
    def effective_mode(self) -> Literal["local", "http"]:
        return "http" if self.host else self.mode


class CatalogSettings(_Group):
    url: SecretStr | None = Field(
        None,
        description="Unset: the SQLite catalog in the data directory. `postgresql://user:password@host:port/db`: "
        "the catalog in PostgreSQL (needs `papertalk[postgres]`), shared by every worker and machine.",
    )
    connect_timeout_s: float = Field(10.0, gt=0, description="Seconds to wait when connecting to PostgreSQL.")
    pool_size: int = Field(4, ge=1, description="PostgreSQL connections each server process keeps open at most.")

    @field_validator("url")
    @classmethod
    def _postgres_only(cls, url: SecretStr | None) -> SecretStr | None:
        if url is None or not url.get_secret_value():
            return None
        if not url.get_secret_value().startswith(("postgresql://", "postgres://")):
            raise ValueError("use a postgresql://user:password@host:port/database URL, or unset it for SQLite")
        return url


class ChunkSettings(_Group):
    chunk_tokens: int = Field(
        200,
        ge=32,
        le=250,
        description="Word pieces of body text per chunk (the title is added on top, at most "
        "`title_tokens`); chosen so that title + chunk + 2 special pieces stay within the model's 256.",
    )
    overlap_tokens: int = Field(32, ge=0, le=128, description="Word pieces shared by neighbouring chunks.")
    title_tokens: int = Field(40, ge=0, le=64, description="Word pieces of the title prefixed to each chunk.")
    clean_text: bool = Field(
        True,
        description="Clean PDF text before chunking: drop running headers, footers and page numbers, keep "
        "section headings as each chunk's section, mark figure and table captions, move footnotes after their "
        "section's text, keep a sentence cut by a page break whole, set run-in paragraph headings and heading "
        "lines between sentences apart, keep page 1's front matter apart without the publisher's notice, drop "
        "superscript citation numbers after a full stop, split run-together words.",
    )


class ArxivSettings(_Group):
    api_url: str = Field("https://export.arxiv.org/api/query", description="arXiv Atom API endpoint.")
    pdf_url: str = Field("https://arxiv.org/pdf/{id}", description="PDF address; `{id}` is the arXiv id.")
    timeout_s: float = Field(30.0, gt=0, description="Seconds to wait for arXiv before giving up.")
    download_deadline_s: float = Field(
        300.0, gt=0, description="Longest one PDF download may take in all (a server trickling bytes is cut off)."
    )


class LLMSettings(_Group):
    backend: Literal["extractive", "openai"] = Field(
        "extractive",
        description="`extractive`: offline, answers with cited sentences from the papers. "
        "`openai`: generative answers through any OpenAI-compatible server.",
    )
    model: str = Field("gpt-4o-mini", description="Chat model name for the `openai` backend.")
    api_key: SecretStr | None = Field(
        None,
        description="API key; falls back to `OPENAI_API_KEY`.",
    )
    base_url: str | None = Field(
        None,
        description="OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio); falls back to `OPENAI_BASE_URL`.",
    )
    timeout_s: float = Field(60.0, gt=0, description="Seconds to wait for the LLM server.")
    answer_timeout_s: float = Field(
        300.0, gt=0, description="Longest a whole answer may take to arrive; a reply still coming then is cut off."
    )
    max_retries: int = Field(1, ge=0, description="Retries on transient LLM server errors.")
    temperature: float = Field(0.1, ge=0, le=2, description="Sampling temperature.")
    max_tokens: int = Field(700, ge=16, description="Longest answer, in tokens.")


_FEEDBACK_CHUNKS = (
    "Dense pseudo-relevance feedback for questions over the whole corpus (no paper, topic or date scope): the "
    "query vector moved towards the mean vector of the first round's best `feedback_chunks` fused chunks, then "
    "searched again and fused again with the same BM25 ranking; 0 turns it off (see docs/benchmarks.md)."
)


class RetrievalSettings(_Group):
    top_k: int = Field(8, ge=1, le=50, description="Passages given to the answerer.")
    candidates: int = Field(100, ge=10, le=1000, description="Candidates taken from each retriever.")
    fusion: Literal["rrf", "convex"] = Field(
        "convex",
        description="How the dense and keyword rankings become one. `rrf`: reciprocal rank fusion of their ranks. "
        "`convex`: `convex_dense_weight` x normalised dense score + the rest x normalised BM25 score (best on "
        "SciFact's train claims; see docs/benchmarks.md).",
    )
    paper_focus: bool = Field(
        False,
        description="A search inside one paper (Ask PDF, `--paper`) reads the question without the paper's own name "
        '("What RL algorithm trains MiroThinker?": every passage is about MiroThinker) and with each acronym '
        'followed by its long form ("RL (reinforcement learning)"). Off: as often worse as better on questions '
        "that name their paper (docs/benchmarks.md, bench_focus).",
    )
    single_paper_fusion: Literal["rrf", "convex"] = Field(
        "rrf",
        description="The fusion for a question about one paper (Ask PDF, `--paper`): RRF finds more of the "
        "evidence inside one paper (QASPER and the bundled PDFs; see docs/benchmarks.md).",
    )
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant.")
    dense_weight: float = Field(1.0, ge=0, description="Weight of the dense ranking in RRF.")
    keyword_weight: float = Field(1.0, ge=0, description="Weight of the BM25 ranking in RRF.")
    normalization: Literal["minmax", "zscore"] = Field(
        "minmax", description="With `convex`: how each ranking's scores are normalised before they are combined."
    )
    convex_dense_weight: float = Field(
        0.45, ge=0, le=1, description="With `convex`: share of the dense score; the BM25 score gets the rest."
    )
    feedback_chunks: int = Field(0, ge=0, le=50, description=_FEEDBACK_CHUNKS)
    feedback_weight: float = Field(
        0.5, ge=0, le=10, description="With `feedback_chunks`: weight of the chunks' mean vector (the query's is 1)."
    )
    furniture_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Factor on the fused score of a passage that is a caption, figure or table text, or back "
        "matter (references, acknowledgments), which rarely answers a question; 1 ranks them as any other "
        "(chosen on the Ask PDF benchmarks; see docs/benchmarks.md).",
    )


class AnswerSettings(_Group):
    max_sentences: int = Field(4, ge=1, le=12, description="Most sentences in an extractive answer.")
    abstain_below: float = Field(
        0.37,
        ge=0,
        le=1,
        description="Extractive answers abstain when the best sentence scores below this (calibrated on QASPER, "
        "QASA and the bundled PDFs' questions: answerable vs unanswerable and off-topic; see docs/benchmarks.md).",
    )
    abstain_evidence: float = Field(
        0.4,
        ge=0,
        le=1,
        description="Extractive answers also abstain when the evidence model (best sentence, question terms and "
        "names found in the passages, retriever agreement: assistant/abstention.py) gives the passages less than "
        "this probability of answering; 0 turns it off (calibrated on held-out questions; see docs/benchmarks.md).",
    )
    support_threshold: float = Field(
        0.48,
        ge=0,
        le=1,
        description="A cited sentence whose support against its passage is below this is marked unsupported "
        "(calibrated on SciFact and the bundled PDFs' claims against passages with and without their evidence; "
        "see docs/benchmarks.md).",
    )
    semantic_weight: float = Field(
        0.7, ge=0, le=1, description="Share of embedding similarity (vs keyword overlap) in sentence scores."
    )
    definitions: bool = Field(
        True,
        description='A "what is X" question is answered from the sentence that says what X is: when the retrieved '
        "passages only use X, the scope's passages BM25 ranks best for X are read for one, and an extractive "
        "answer leads with it (measured on the demo corpus; see docs/benchmarks.md).",
    )
    kind_lookup: bool = Field(
        True,
        description='A "which X" question about one paper ("Which RL algorithm trains the Crawler?") whose '
        "retrieved passages name no thing of kind X: the paper's passages BM25 ranks best for the question are read "
        "for a sentence that names one and shares the question's words, and the first such passage joins the "
        "sources (measured on the Ask PDF sets; see docs/benchmarks.md).",
    )
    compound: bool = Field(
        True,
        description='A question of two parts ("What is GRPO and how do agentic papers modify it?") is searched part '
        "by part (top_k passages each), and an extractive answer quotes the lead sentences of each part's answer in "
        'turn, max_sentences shared out; a comparison ("How do PPO and GRPO differ?") is asked as itself and as '
        "what each thing is (measured on pairs of Ask PDF questions; see docs/benchmarks.md).",
    )
    focus: bool = Field(
        False,
        description="The offline answer scores sentences against the question with its acronyms followed by their "
        'long forms ("RL (reinforcement learning)"), and a sentence that spells a long form out counts as using '
        "the acronym. Off: no better on the measured questions (docs/benchmarks.md, bench_focus).",
    )


class PdfSettings(_Group):
    parser: Literal["pypdf", "pypdfium2"] = Field(
        "pypdf",
        description="PDF text extraction: `pypdf` (pure Python) or `pypdfium2` (PDFium: many times faster, and "
        "keeps the spaces between words that pypdf drops on some PDFs; `pip install pypdfium2`).",
    )
    max_file_mb: float = Field(
        100.0, gt=0, description="PDFs larger than this (in MB) are refused without being opened."
    )
    max_pages: int = Field(2000, ge=1, description="PDFs with more pages than this are refused.")
    max_text_chars: int = Field(
        5_000_000,
        ge=1,
        description="Most characters of text one PDF may yield (about 1,500 pages of dense text); a PDF that "
        "yields more is refused before chunking.",
    )
    timeout_s: float = Field(
        60.0,
        gt=0,
        description="Wall-clock seconds one PDF may take to parse. Parsing runs in a worker process, which is "
        "stopped and replaced when a PDF runs over.",
    )
    max_memory_mb: int = Field(
        1024, ge=64, description="Address space (in MB) of the PDF worker process; a PDF that needs more is refused."
    )


class ApiSettings(_Group):
    key: SecretStr | None = Field(
        None,
        description="When set, write routes (POST, DELETE) of the HTTP API need it as `Authorization: Bearer KEY` "
        "or `X-API-Key: KEY`; `PAPERTALK_API_KEY` is read too.",
    )
    max_upload_mb: float = Field(50.0, gt=0, description="Largest PDF the HTTP API accepts for upload, in MB.")
    max_body_kb: int = Field(64, ge=1, description="Largest request body of the other HTTP API routes, in KB.")
    max_question_chars: int = Field(2000, ge=10, description="Longest question the HTTP API accepts, in characters.")
    chat_per_minute: int = Field(
        60,
        ge=0,
        description="Chat requests one client (address) may make per minute, counted in the catalog for all the "
        "workers and servers sharing it; 0: no limit.",
    )
    uploads_per_minute: int = Field(
        20,
        ge=0,
        description="PDF uploads one client (address) may make per minute, counted in the catalog for all the "
        "workers and servers sharing it; 0: no limit.",
    )
    topic_page_cache: int = Field(
        64,
        ge=0,
        description="Topic pages each server process keeps built until the catalog changes (any write, from any "
        "process, moves its version on); 0: built for every request.",
    )


class Settings(BaseSettings):
    """Everything papertalk can be told. See the configuration table in README.md."""

    model_config = SettingsConfigDict(
        env_prefix="PAPERTALK_",
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",  # `.env` is shared with other tools; misspelt PAPERTALK_ names are caught in __init__
    )

    data_dir: Path = Field(default_factory=_default_data_dir, description="Where the catalog and vectors live.")
    progress_every_s: float = Field(
        5.0, gt=0, description="Seconds between progress lines when output is not a terminal (piped, logged)."
    )
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings, description="Embedding model.")
    chroma: ChromaSettings = Field(default_factory=ChromaSettings, description="Vector store.")
    catalog: CatalogSettings = Field(default_factory=CatalogSettings, description="Catalog database.")
    chunking: ChunkSettings = Field(default_factory=ChunkSettings, description="Chunk sizes.")
    arxiv: ArxivSettings = Field(default_factory=ArxivSettings, description="arXiv API.")
    llm: LLMSettings = Field(default_factory=LLMSettings, description="Answer backend.")
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings, description="Retrieval.")
    answer: AnswerSettings = Field(default_factory=AnswerSettings, description="Answer composition and checks.")
    api: ApiSettings = Field(default_factory=ApiSettings, description="HTTP API (`papertalk serve`).")
    openai_api_key: SecretStr | None = Field(None, validation_alias="OPENAI_API_KEY", exclude=True)
    openai_base_url: str | None = Field(None, validation_alias="OPENAI_BASE_URL", exclude=True)

    def __init__(self, **values: Any) -> None:
        """Settings from init values, the environment and `.env`; any problem is one `ConfigurationError`."""
        env_file = values.get("_env_file", type(self).model_config.get("env_file"))
        dotenv = read_dotenv(Path(env_file)) if isinstance(env_file, str | Path) else {}
        check_names(type(self), os.environ, dotenv)
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise ConfigurationError(describe_invalid(type(self), exc, dotenv)) from None
        except SettingsError as exc:
            raise ConfigurationError(describe_unparsable(type(self), exc)) from None

    pdf: PdfSettings = Field(default_factory=PdfSettings, description="Limits on each PDF parsed.")

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite3"

    @property
    def chroma_path(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def keyword_path(self) -> Path:
        return self.data_dir / "bm25"

    def llm_api_key(self) -> str | None:
        key = self.llm.api_key or self.openai_api_key
        return key.get_secret_value() if key is not None else None

    def llm_base_url(self) -> str | None:
        return self.llm.base_url or self.openai_base_url


def ensure_data_dir(path: Path) -> None:
    """Create the data directory if needed; raise `ConfigurationError` if papertalk cannot write there."""
    hint = "choose another with --data-dir or PAPERTALK_DATA_DIR"
    if path.exists() and not path.is_dir():
        raise ConfigurationError(f"the data directory {path} is a file, not a directory: {hint}")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ConfigurationError(f"the data directory {path} cannot be used ({reason}): {hint}") from None


def settings_table() -> str:
    """The README's configuration table, generated from the settings models (a test keeps them equal)."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        if field.validation_alias is not None:  # OPENAI_API_KEY and OPENAI_BASE_URL: in the prose
            continue
        group = field.default_factory() if field.default_factory else None  # type: ignore[call-arg]
        if isinstance(group, BaseModel):
            for sub, sub_field in type(group).model_fields.items():
                default = getattr(group, sub)
                lines.append(f"| `PAPERTALK_{name.upper()}__{sub.upper()}` | `{default}` | {sub_field.description} |")
        else:
            default = "platform data dir" if name == "data_dir" else f"`{field.default}`"
            lines.append(f"| `PAPERTALK_{name.upper()}` | {default} | {field.description} |")
    return "\n".join(lines)
