// swift-tools-version:6.1
import PackageDescription

// Strict settings shared by every Swift target: Swift 6 language mode (complete
// concurrency checking) plus the upcoming features that make dependencies explicit.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "notes",
    products: [
        .executable(name: "notes", targets: ["NotesCLI"]),
        .executable(name: "notes-mcp", targets: ["NotesMCPMain"]),
        .library(name: "NotesIndex", targets: ["NotesIndex"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", exact: "0.12.1"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    ],
    targets: [
        // cmark 0.30 from Debian's libcmark-dev; the only importer is NotesDocuments.
        .systemLibrary(
            name: "CCmark", pkgConfig: "libcmark",
            providers: [.apt(["libcmark-dev"]), .brew(["cmark"])]),
        // libcurl's headers from Debian's libcurl4-openssl-dev, with typed wrappers for its
        // variadic calls. Not linked: the shim opens libcurl.so.4 on the first transfer, so
        // commands that never touch the network skip loading it and its ~25 dependencies
        // (no pkgConfig here, which would add -lcurl; see Sources/CCurl/shim.h).
        .systemLibrary(name: "CCurl"),
        // OpenBLAS's cblas_sgemm (Debian: libopenblas0, from libopenblas-dev), for the embedding
        // model's matrix products; on macOS this would be Accelerate's cblas instead. Not linked:
        // the shim opens libopenblas.so.0 when the first model loads, after choosing its kernels
        // from the CPU's features (Debian's OpenBLAS 0.3.21 runs SSE3 kernels on CPUs it does not
        // know), and so other commands skip loading it and libgfortran (Sources/COpenBLAS/shim.h).
        .systemLibrary(
            name: "COpenBLAS", providers: [.apt(["libopenblas-dev"]), .brew(["openblas"])]),
        // SHA-256 from OpenSSL's libcrypto (headers from libssl-dev, which libcurl4-openssl-dev
        // pulls in): hardware SHA extensions where the CPU has them; see docs/decisions.md.
        // Not linked: the shim opens libcrypto.so.3 on the first hash of 128 bytes or more and
        // hashes shorter inputs itself, so commands that hash nothing but the workspace path
        // skip loading it (no pkgConfig here, which would add -lcrypto; see Sources/CCrypto/shim.h).
        .systemLibrary(name: "CCrypto"),
        // SQLite in C, over the system SQLite's headers (Sources/CSQLiteExtensions/include/):
        // FTS5 tokens recorded on the parsing threads and replayed by the writer's INSERTs, so
        // the single writer skips tokenizing (it sits between two FTS5 C interfaces:
        // token_replay.h); the index's WAL kept between processes, so read-only commands write
        // nothing (`sqlite3_db_config` is variadic: wal_sharing.h); BM25 as FTS5 computes it,
        // with the sections' lengths in memory in a long-lived process (section_rank.h).
        .target(name: "CSQLiteExtensions", linkerSettings: [.linkedLibrary("sqlite3")]),
        // POSIX and Linux calls Swift's Glibc module does not offer (Sources/CSystemCalls/include/):
        // `openat2` with RESOLVE_NO_SYMLINKS (no glibc wrapper), reads that refuse a folder
        // swapped for a symlink in one system call (no_follow_open.h); `statfs`'s filesystem
        // type, whether folder ctimes can be trusted to skip listing unchanged folders
        // (folder_times.h); `sync_file_range`, a first build's file written out while it is
        // built instead of all at its fsync (writeback.h).
        .target(name: "CSystemCalls"),
        // Float kernels for short inputs, chosen at run time from the CPU's features (AVX-512,
        // AVX2+FMA, portable C): the embedding model's products for a query's few tokens,
        // which OpenBLAS spends on packing the weights, and the int8 similarity scan over
        // every stored passage (Sources/CVectorKernels/include/vector_kernels.h).
        .target(name: "CVectorKernels"),
        // cmark's allocations in a per-thread arena: nodes and buffers carved from kept
        // chunks, freed all at once (Sources/CMarkdownArena/include/markdown_arena.h).
        .target(name: "CMarkdownArena", dependencies: ["CCmark"]),
        // HTTP over libcurl: timeouts, redirects, size limits, streaming, server-sent events.
        .target(
            name: "NotesNetwork",
            dependencies: ["CCurl"],
            swiftSettings: strictSettings),
        // The offline sentence-embedding model (all-MiniLM-L6-v2): safetensors weights
        // memory-mapped, the BERT WordPiece tokenizer and the forward pass over BLAS.
        .target(
            name: "NotesEmbedding",
            dependencies: ["COpenBLAS", "CVectorKernels"],
            // Optimised in debug builds too: the forward pass's loops around BLAS (layer norm,
            // GELU, attention softmax) at -Onone made the tests that embed 3-6× slower. Allowed
            // because no library product the package exports contains it (SwiftPM refuses
            // unsafe flags only in the products another package depends on); NotesCore, which
            // the exported NotesIndex needs, builds without them (docs/decisions.md).
            swiftSettings: strictSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // Workspace, paths, the walk, front matter, provenance, versions, config.
        .target(
            name: "NotesCore",
            dependencies: ["CCrypto", "CSystemCalls", .product(name: "Yams", package: "Yams")],
            swiftSettings: strictSettings),
        // Bytes -> a parsed document (title, tags, headings, links, sections).
        .target(
            name: "NotesDocuments",
            dependencies: ["NotesCore", "CCmark", "CMarkdownArena"],
            swiftSettings: strictSettings),
        // The one write path: policy, the agent's guard, stamping, history, proposals,
        // atomic locked writes.
        .target(
            name: "NotesStore",
            dependencies: ["NotesCore", "NotesDocuments"],
            swiftSettings: strictSettings),
        // The per-device SQLite FTS5 index: schema, refresh, query language, search.
        .target(
            name: "NotesIndex",
            dependencies: [
                "NotesCore", "NotesDocuments", "CSQLiteExtensions", "CSystemCalls",
                "CVectorKernels",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings),
        // A workspace opened for work: the index, and the change history its refreshes
        // settle outside edits with (the index is a cache and never writes the history).
        .target(
            name: "NotesSession",
            dependencies: ["NotesCore", "NotesStore", "NotesIndex"],
            swiftSettings: strictSettings),
        // The agent's tools (SPEC §7): one implementation for the MCP server and the
        // built-in agent, transport-neutral (JSON in, JSON out).
        .target(
            name: "NotesTools",
            dependencies: [
                "NotesCore", "NotesDocuments", "NotesStore", "NotesIndex", "NotesSession",
                "NotesNetwork", "NotesEmbedding",
            ],
            swiftSettings: strictSettings),
        // `notes agent`: the model providers (Anthropic, OpenAI-compatible), the tool loop over
        // NotesTools, checkpoints in Chats/<id>.json, budgets and cost.
        .target(
            name: "NotesAgent",
            dependencies: [
                "NotesCore", "NotesStore", "NotesIndex", "NotesSession", "NotesTools",
                "NotesNetwork",
            ],
            swiftSettings: strictSettings),
        // Fuzz targets (docs/reliability.md): a replay tool in normal builds, a libFuzzer
        // binary with `-sanitize=fuzzer -DFUZZING` (scripts/fuzz).
        .executableTarget(
            name: "NotesFuzz",
            dependencies: ["NotesCore", "NotesIndex", "NotesTools"],
            swiftSettings: strictSettings),
        // `notes mcp`: the tools, resources and prompts over the MCP Swift SDK on stdio.
        .target(
            name: "NotesMCP",
            dependencies: [
                "NotesCore", "NotesIndex", "NotesSession", "NotesStore", "NotesTools",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        // The MCP server's executable, which `notes mcp` execs: kept out of the `notes` binary
        // so that the SDK's networking libraries do not slow every command's start.
        .executableTarget(
            name: "NotesMCPMain",
            dependencies: ["NotesCore", "NotesIndex", "NotesSession", "NotesMCP"],
            swiftSettings: strictSettings),
        // The `notes` command: parse arguments, call the library, render.
        .executableTarget(
            name: "NotesCLI",
            dependencies: [
                "NotesCore", "NotesDocuments", "NotesIndex", "NotesSession", "NotesStore",
                "NotesTools", "NotesAgent", "NotesNetwork", "NotesEmbedding",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),
        // A load generator for the concurrency tests (read-modify-write cycles as an agent).
        .executableTarget(
            name: "NotesStress",
            dependencies: ["NotesCore", "NotesStore"],
            swiftSettings: strictSettings),
        // Temp folders, repository paths and a process runner, for tests only.
        .target(name: "NotesTestSupport", swiftSettings: strictSettings),
        .testTarget(
            name: "NotesCoreTests", dependencies: ["NotesCore", "NotesTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "NotesDocumentsTests",
            dependencies: ["NotesDocuments", "CCmark", "CMarkdownArena", "NotesTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "NotesIndexTests",
            dependencies: [
                "NotesIndex", "NotesSession", "CSQLiteExtensions", "NotesDocuments",
                "NotesTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "NotesStoreTests", dependencies: ["NotesStore", "NotesTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "NotesToolsTests",
            dependencies: [
                "NotesTools", "NotesCore", "NotesStore", "NotesIndex", "NotesSession",
                "NotesTestSupport",
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "NotesEmbeddingTests",
            dependencies: ["NotesEmbedding", "CVectorKernels", "NotesTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "NotesNetworkTests", dependencies: ["NotesNetwork"], swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NotesAgentTests",
            dependencies: [
                "NotesAgent", "NotesTools", "NotesCore", "NotesStore", "NotesIndex", "NotesNetwork",
                "NotesTestSupport",
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "NotesCLITests", dependencies: ["NotesCore", "NotesTestSupport"],
            swiftSettings: strictSettings),
    ]
)
