//! Fills `fuzz/seeds/<target>/` with a small corpus each target starts from: the repository's
//! own files (the example repo under `fixtures/`, its manifests and sources, the TOML of the
//! README and the integration tests) and inputs made with the real encoders (frames, signed
//! declarations, receive streams, packed artifacts, REAPI messages, secret files), so that
//! the fuzzer starts past the checks random bytes never pass.
//!
//! `cargo run --manifest-path fuzz/Cargo.toml --example seeds` (from anywhere); the seed
//! directories are made anew. Deterministic: the same repository gives the same seeds.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use bazel_remote_apis::build::bazel::remote::execution::v2::{
    ActionResult, ExecuteResponse, OutputDirectory, OutputFile,
};
use mesh_fuzz::SEP;
use mesh_proto::frame::{self, Kind};
use prost::Message;

/// The largest file taken as a seed: larger ones make every run of the target slower.
const MAX_SEED: usize = 8 * 1024;

/// The seeds being written: target → (name → bytes).
#[derive(Default)]
struct Seeds(BTreeMap<&'static str, BTreeMap<String, Vec<u8>>>);

impl Seeds {
    fn add(&mut self, target: &'static str, name: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        let bytes = bytes.into();
        if bytes.len() <= 4 * MAX_SEED {
            self.0.entry(target).or_default().insert(name.into(), bytes);
        }
    }

    fn write(&self, dir: &Path) -> std::io::Result<()> {
        let mut total = 0;
        for (target, seeds) in &self.0 {
            let d = dir.join(target);
            let _ = fs::remove_dir_all(&d);
            fs::create_dir_all(&d)?;
            for (name, bytes) in seeds {
                fs::write(d.join(name), bytes)?;
                total += bytes.len();
            }
            println!("{target:<16} {:>3} seeds", seeds.len());
        }
        println!("{} KiB in all", total / 1024);
        Ok(())
    }
}

/// Every file under `dir` (sorted), relative paths with their bytes; small files only.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for (rel, kind) in mesh_fuzz::listing(dir) {
        if kind != "file" {
            continue;
        }
        if let Ok(bytes) = fs::read(dir.join(&rel))
            && bytes.len() <= MAX_SEED
        {
            out.push((rel, bytes));
        }
    }
    out
}

/// A seed's name for a repository file: its path with `/` as `_`.
fn name_of(rel: &Path) -> String {
    rel.display().to_string().replace('/', "_")
}

/// The blocks of `text` that look like TOML holding `marker`: the README's ```toml fences and
/// the raw strings of the integration tests.
fn toml_blocks(text: &str, marker: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in text.split("```toml").skip(1) {
        if let Some((block, _)) = part.split_once("```")
            && block.contains(marker)
        {
            out.push(block.trim_start().to_string());
        }
    }
    // Plain string literals too, their common escapes undone.
    for part in text.split(" \"[").skip(1) {
        if let Some((block, _)) = part.split_once("\",")
            && block.contains(marker)
            && !block.contains('{')
        {
            let block = format!("[{block}")
                .replace("\\n", "\n")
                .replace("\\\"", "\"");
            out.push(block);
        }
    }
    for part in text.split("r#\"").skip(1) {
        if let Some((block, _)) = part.split_once("\"#")
            && block.contains(marker)
            && block.len() <= MAX_SEED
        {
            out.push(block.to_string());
        }
    }
    out
}

fn frames(parts: &[(Kind, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (kind, payload) in parts {
        let _ = frame::write(&mut out, *kind, payload);
    }
    out
}

/// A receive stream as `frame::Data` frames up to `End`.
fn in_frames(stream: &[u8]) -> Vec<u8> {
    let mut out = frames(&[(Kind::Receive, b"")]);
    let _ = frame::write_stream(&mut out, &mut &stream[..]);
    out
}

fn packed(dir: &Path) -> (String, Vec<u8>) {
    let mut tar = Vec::new();
    let (digest, _) = mesh_node::artifact::pack(dir, &mut tar).expect("the fixtures pack");
    (digest.to_string(), tar)
}

/// One entry of a tar made by hand: path, type, link target, body.
type RawEntry<'a> = (&'a str, tar::EntryType, &'a str, &'a [u8]);

/// A tar of raw entries: what `mesh build` never makes.
fn raw_tar(entries: &[RawEntry]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, kind, link, body) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(*kind);
        h.set_mode(0o644);
        h.set_size(body.len() as u64);
        {
            let name = &mut h.as_old_mut().name;
            let n = path.len().min(name.len());
            name[..n].copy_from_slice(&path.as_bytes()[..n]);
        }
        if !link.is_empty() {
            let _ = h.set_link_name(link);
        }
        h.set_cksum();
        let _ = b.append(&h, *body);
    }
    b.into_inner().unwrap_or_default()
}

fn main() -> std::io::Result<()> {
    let fuzz = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let repo = fuzz
        .parent()
        .expect("fuzz/ is in the repository")
        .to_path_buf();
    let example = repo.join("fixtures/example");
    let mut s = Seeds::default();
    let me = mesh_fuzz::controller();

    // Sources and manifests of the example repository, and a few of the repository's own.
    for (rel, bytes) in files(&example) {
        let name = name_of(&rel);
        let path = rel.display().to_string();
        match rel.extension().and_then(|e| e.to_str()) {
            Some("rs") => s.add("imports_rust", name.clone(), bytes.clone()),
            Some("py") => s.add("imports_python", name.clone(), [&[0u8][..], &bytes].concat()),
            Some("go") => s.add("imports_go", name.clone(), bytes.clone()),
            Some("ts" | "js") => s.add("imports_js", name.clone(), [&[0u8][..], &bytes].concat()),
            _ => {}
        }
        let manifest = ["Cargo.toml", "pyproject.toml", "package.json", "go.mod"]
            .iter()
            .position(|m| path.ends_with(m));
        if let Some(i) = manifest {
            // The module's Python files after the manifest, for `pyproject.toml`.
            let dir = rel.parent().unwrap_or(Path::new(""));
            let python: Vec<String> = files(&example.join(dir))
                .into_iter()
                .filter(|(r, _)| r.extension().is_some_and(|e| e == "py"))
                .map(|(r, _)| r.display().to_string())
                .collect();
            let mut seed = vec![i as u8];
            seed.extend_from_slice(&bytes);
            if !python.is_empty() {
                seed.extend_from_slice(&[0xff, 0xff]);
                seed.extend_from_slice(python.join("\n").as_bytes());
            }
            s.add("manifests", name.clone(), seed);
        }
        if path.ends_with("mesh-module.toml") {
            s.add("module_toml", name, bytes);
        }
    }
    for crate_dir in [
        "crates/mesh-proto",
        "crates/mesh-node",
        "crates/mesh-imports",
    ] {
        let cargo = fs::read(repo.join(crate_dir).join("Cargo.toml"))?;
        let name = format!("{}_Cargo.toml", crate_dir.replace('/', "_"));
        s.add("manifests", name, [&[0u8][..], &cargo].concat());
    }
    for (rel, bytes) in files(&repo.join("crates/mesh-proto/src")) {
        s.add(
            "imports_rust",
            format!("mesh-proto_{}", name_of(&rel)),
            bytes,
        );
    }
    for f in ["tests/worker.py"] {
        if let Ok(bytes) = fs::read(repo.join(f)) {
            s.add("imports_python", name_of(Path::new(f)), [&[0u8][..], &bytes].concat());
        }
    }
    s.add(
        "manifests",
        "setup.cfg",
        b"\x04[metadata]\nname = my-lib\n\n[options]\npackages = find:\npackage_dir =\n    = src\ninstall_requires =\n    requests>=2\n    attrs\n\n[options.packages.find]\nwhere = src\n\xff\xffsrc/my_lib/__init__.py\nsrc/my_lib/core.py\ntests/test_core.py".to_vec(),
    );
    s.add(
        "manifests",
        "tsconfig.json",
        b"\x05{\n  // Shared settings.\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    /* aliases */\n    \"paths\": {\n      \"@shared/*\": [\"../../libs/shared/src/*\"],\n      \"@/*\": [\"./src/*\"],\n      \"@ui\": [\"../../libs/ui/src/index.ts\",],\n    },\n  },\n}\n".to_vec(),
    );
    s.add(
        "imports_python",
        "notebook.ipynb",
        b"\x01{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"%pip install pandas\\n\",\n    \"import pandas as pd\\n\",\n    \"from .local import x\"\n   ]\n  },\n  {\"cell_type\": \"code\", \"source\": \"%%bash\\nimport no\\n\"}\n ],\n \"nbformat\": 4\n}\n".to_vec(),
    );
    s.add(
        "imports_js",
        "component.vue",
        b"\x01<template><div>{{ x }}</div></template>\n<script setup lang=\"ts\">\nimport { ref } from 'vue'\nimport Button from '@ui/button.vue'\nconst x = ref(1)\n</script>\n<!-- <script>import 'no'</script> -->\n".to_vec(),
    );
    s.add(
        "imports_js",
        "page.astro",
        b"\x02---\nimport Layout from '../layouts/Layout.astro';\nimport { site } from '@shared/site';\n---\n<Layout><script>import 'analytics';</script></Layout>\n".to_vec(),
    );
    s.add(
        "imports_js",
        "require.js",
        b"\x00const a = require('a');\ntry { require.resolve('b') } catch (e) { if (e.code !== 'MODULE_NOT_FOUND') throw e }\nexport * from './c';\nimport('d').then(() => {});\njest.mock('e', () => ({}), { virtual: true });\n".to_vec(),
    );

    // mesh.toml and mesh-module.toml from the README and the integration tests.
    let mut texts = vec![fs::read_to_string(repo.join("README.md"))?];
    for (rel, kind) in mesh_fuzz::listing(&repo.join("tests/it")) {
        if kind == "file" && rel.extension().is_some_and(|e| e == "rs") {
            texts.push(fs::read_to_string(repo.join("tests/it").join(&rel))?);
        }
    }
    let valid = format!(
        "[mesh]\nname = \"demo\"\ncontroller = \"cron\"\nsilent_after = \"2h\"\n\n[[repo]]\nname = \"platform\"\npath = \"platform\"\nref = \"refs/heads/main\"\n\n[[repo]]\nname = \"tools\"\nurl = \"ssh://deploy:s3cret-pw@git.example.org/acme/tools.git\"\n\n[ssh]\nparallel = 4\ntimeout = \"30s\"\n\n[node.ace]\naddress = \"root@ace\"\ntags = [\"edge\"]\n\n[node.g14]\ntransport = \"local\"\nroot = \"nodes/g14\"\n\n[assign]\nroute-proxy = [\"ace\", \"@edge\"]\n\n[controllers]\nlaptop = \"{}\"\n\n[rollout]\nwaves = [\"tag:edge\", \"10%\", 3, \"100%\"]\nwait = \"10m\"\n\n[remote]\nendpoint = \"grpcs://build.example.org:8980\"\nheaders = {{ x-team = \"a\" }}\n",
        mesh_fuzz::stranger().public()
    );
    s.add("mesh_toml", "valid.toml", valid);
    let mut n = 0;
    for text in &texts {
        for block in toml_blocks(text, "[mesh]") {
            n += 1;
            if n <= 40 {
                s.add("mesh_toml", format!("mesh-{n:02}.toml"), block);
            }
        }
    }
    let mut n = 0;
    for text in &texts {
        for block in toml_blocks(text, "build =") {
            if block.contains("[mesh]") {
                continue;
            }
            n += 1;
            if n <= 20 {
                s.add("module_toml", format!("module-{n:02}.toml"), block);
            }
        }
    }

    // Declarations: signed envelopes of several shapes.
    let a = "ab".repeat(32);
    let mut full = mesh_fuzz::module("route-proxy", &a, 10);
    full.activate = Some("bin/route-proxy --selfcheck \u{1b}[0m".into());
    full.check = Some("bin/check".into());
    full.check_timeout_ms = Some(5000);
    full.settle_ms = Some(1000);
    full.provide = Some("bin/provide".into());
    full.secrets = vec![mesh_proto::secret::SecretRef {
        digest: "cd".repeat(32),
        name: "DB_PASSWORD".into(),
    }];
    let shapes = [
        ("empty", mesh_fuzz::envelope(&me, Vec::new(), 1)),
        (
            "one",
            mesh_fuzz::envelope(&me, vec![mesh_fuzz::module("m", &a, 3)], 7),
        ),
        ("full", mesh_fuzz::envelope(&me, vec![full.clone()], 42)),
    ];
    for (name, env) in &shapes {
        s.add("envelope", format!("{name}.json"), env.to_bytes());
    }
    let mut listed = shapes[2].1.declaration.clone();
    listed.controllers = vec![mesh_fuzz::stranger().signer()];
    listed.halted = vec![mesh_proto::wire::Halted {
        commit: "c0ffee".into(),
        module: "m".into(),
    }];
    s.add(
        "envelope",
        "listed.json",
        listed.seal(3).signed(&me, BTreeMap::new()).to_bytes(),
    );
    s.add(
        "envelope",
        "unsigned.json",
        mesh_fuzz::envelope(&me, Vec::new(), 1)
            .declaration
            .seal(1)
            .to_bytes(),
    );

    // Frames and sessions.
    let hello = br#"{"protocol":5,"version":"0.1.0","alive_every_ms":10}"#;
    let provide = br#"{"provider":"db","consumer":"app","as":"db","again":false,"recipients":[]}"#;
    let env2 = mesh_fuzz::envelope(&me, Vec::new(), 2).to_bytes();
    let mut receive = mesh_fuzz::declaration_part(&env2);
    receive.extend_from_slice(b"end\n");
    let conversation = [
        frames(&[(Kind::Hello, hello), (Kind::Have, b"")]),
        in_frames(&receive),
        frames(&[
            (Kind::Apply, b""),
            (Kind::Report, b"0"),
            (Kind::Check, b""),
            (Kind::Trust, b"show"),
            (Kind::Provide, provide),
            (Kind::Trust, b"reset"),
            (Kind::Quit, b""),
        ]),
    ]
    .concat();
    s.add("frame", "conversation", conversation.clone());
    s.add(
        "frame",
        "cut",
        frames(&[(Kind::Receive, b""), (Kind::Data, b"declaration 3\nab")]),
    );
    for held in [0u8, 1] {
        s.add(
            "session",
            format!("conversation-{held}"),
            [&[held][..], &conversation].concat(),
        );
    }
    s.add(
        "session",
        "reports-1",
        [
            &[1u8][..],
            &frames(&[
                (Kind::Hello, hello),
                (Kind::Report, b"0"),
                (Kind::Quit, b""),
            ]),
        ]
        .concat(),
    );

    // Receive streams, one per mode of the target.
    let tiny = raw_tar(&[("a.txt", tar::EntryType::Regular, "", b"hello\n")]);
    let tiny_digest = blake3::hash(&tiny).to_hex().to_string();
    let env = mesh_fuzz::envelope(
        &me,
        vec![mesh_fuzz::module("m", &tiny_digest, tiny.len() as u64)],
        1,
    )
    .to_bytes();
    let mut whole = mesh_fuzz::declaration_part(&env);
    whole.extend_from_slice(format!("artifact {tiny_digest} {}\n", tiny.len()).as_bytes());
    whole.extend_from_slice(&tiny);
    whole.extend_from_slice(b"end\n");
    s.add("receive", "0-whole", [&[0u8][..], &whole].concat());
    s.add("receive", "1-end", b"\x01end\n".to_vec());
    s.add("receive", "1-junk", b"\x01artifact 12 3\nabcend\n".to_vec());
    let delivery = format!(
        "{{\"declaration\":\"@DIGEST@\",\"values\":[{{\"digest\":\"{}\",\"hex\":\"68756e74657232\"}}]}}",
        mesh_proto::secret::digest(&[1; 32], b"hunter2")
    );
    s.add(
        "receive",
        "2-secrets",
        [&[2u8][..], delivery.as_bytes(), &[SEP], b"end\n"].concat(),
    );
    let (_, ui_kit) = packed(&example.join("ts/ui-kit"));
    s.add(
        "receive",
        "3-artifact",
        [&[3u8][..], &ui_kit, &[SEP], b"end\n"].concat(),
    );
    let compressed = zstd::encode_all(&ui_kit[..], 3)?;
    s.add(
        "receive",
        "4-zstd",
        [&[4u8][..], &compressed, &[SEP], b"end\n"].concat(),
    );

    // Journal: reports as a node writes them.
    let report = |seq: u64, outcome: &str| {
        format!(
            "{{\"report_sequence\":{seq},\"declaration\":{{\"digest\":\"{a}\",\"sequence\":1}},\"outcome\":\"{outcome}\",\"reason\":null,\"resources\":[{{\"id\":\"module:m\",\"outcome\":\"ok\",\"reason\":null,\"health\":{{\"healthy\":true,\"since\":\"2026-12-04T08:00:00Z\",\"build\":\"1\",\"commit\":\"c0ffee\"}},\"secrets\":{{\"DB\":\"{a}\"}}}}],\"host_version\":\"0.1.0\",\"at\":\"2026-12-04T08:00:00Z\",\"journal\":\"0123456789abcdef\"}}\n"
        )
    };
    let mut journal = vec![0u8, 1];
    journal.extend_from_slice(report(1, "applied").as_bytes());
    journal.push(SEP);
    journal.extend_from_slice(report(2, "refused").as_bytes());
    journal.push(SEP);
    journal.extend_from_slice(b"{torn");
    s.add("journal", "three", journal);
    s.add(
        "journal",
        "edge",
        [&[1u8, 0][..], report(9, "checked").as_bytes()].concat(),
    );

    // Artifacts: packed from the example, and tars mesh never makes.
    for dir in ["ts/ui-kit", "python/reporter", "go/lib/geo"] {
        s.add(
            "unpack",
            dir.replace('/', "_"),
            packed(&example.join(dir)).1,
        );
    }
    let linked = mesh_fuzz::scratch();
    fs::create_dir_all(linked.path().join("bin/sub"))?;
    fs::write(linked.path().join("bin/tool"), b"#!/bin/sh\n")?;
    std::os::unix::fs::symlink("tool", linked.path().join("bin/run"))?;
    std::os::unix::fs::symlink("../bin/tool", linked.path().join("bin/sub/up"))?;
    std::os::unix::fs::symlink(".", linked.path().join("here"))?;
    s.add("unpack", "links", packed(linked.path()).1);
    let evil: [(&str, Vec<RawEntry>); 6] = [
        ("climb", vec![("../x", tar::EntryType::Regular, "", b"x")]),
        (
            "absolute-link",
            vec![("l", tar::EntryType::Symlink, "/etc/passwd", b"")],
        ),
        (
            "through-link",
            vec![
                ("d", tar::EntryType::Symlink, ".", b""),
                ("d/x", tar::EntryType::Regular, "", b"x"),
            ],
        ),
        (
            "link-chain",
            vec![
                ("s", tar::EntryType::Symlink, ".", b""),
                ("t", tar::EntryType::Symlink, "s/..", b""),
            ],
        ),
        (
            "hard-link",
            vec![
                ("a", tar::EntryType::Regular, "", b"a"),
                ("b", tar::EntryType::Link, "a", b""),
            ],
        ),
        (
            "twice",
            vec![
                ("a", tar::EntryType::Regular, "", b"a"),
                ("a/", tar::EntryType::Directory, "", b""),
            ],
        ),
    ];
    for (name, entries) in evil {
        s.add("unpack", name, raw_tar(&entries));
    }

    // Store values: every table, its value sealed with zero bytes (the empty value of most
    // types) and a few words.
    for table in 0..30u8 {
        s.add(
            "store_value",
            format!("{table:02}-zero"),
            [&[table, 1][..], &[0u8; 48]].concat(),
        );
        s.add(
            "store_value",
            format!("{table:02}-words"),
            [
                &[table, 1][..],
                &[2, b'a', b'b', 1, 3, b'x', b'y', b'z', 0, 0, 7, 0, 0, 0],
            ]
            .concat(),
        );
    }
    s.add(
        "store_value",
        "raw",
        mesh::store::encode("builds", b"fuzz", &(1u64, "x".to_string())),
    );

    // REAPI: a signed result, its tree message and the files it names.
    let mut tree = mesh::remote::merkle::tree(&example.join("python/reporter"))?;
    let message_digest = tree.as_message();
    let message = match tree.blobs.get(&message_digest.hash) {
        Some(mesh::remote::merkle::Blob::Bytes(b)) => b.clone(),
        _ => Vec::new(),
    };
    let action = mesh::remote::merkle::digest_of(b"action");
    let vouch = mesh::remote::sign::Vouch {
        action: action.clone(),
        tree: mesh::remote::merkle::digest_of(&message),
        artifact: (a.clone(), 10),
        log: None,
    };
    let signature = vouch.sign(&me);
    let result = ActionResult {
        output_directories: vec![OutputDirectory {
            path: mesh::remote::action::OUT.into(),
            tree_digest: Some(mesh::remote::merkle::digest_of(&message)),
            ..Default::default()
        }],
        output_files: vec![OutputFile {
            path: mesh::remote::sign::FILE.into(),
            digest: Some(mesh::remote::merkle::digest_of(&signature)),
            ..Default::default()
        }],
        exit_code: 0,
        stdout_digest: Some(mesh::remote::merkle::digest_of(b"log")),
        ..Default::default()
    };
    let execute = ExecuteResponse {
        result: Some(result.clone()),
        ..Default::default()
    };
    for (flags, name) in [
        (0u8, "result"),
        (1, "execute"),
        (6, "signed-right"),
        (4, "right"),
    ] {
        let first = if flags & 1 == 1 {
            execute.encode_to_vec()
        } else {
            result.encode_to_vec()
        };
        let seed = [
            &[flags][..],
            &first,
            &[SEP],
            &signature,
            &[SEP],
            &message,
            &[SEP],
            b"print('hi')\n",
        ]
        .concat();
        s.add("reapi", name, seed);
    }

    // Secret files: one as `mesh secret set` writes it, and one per mode of the target.
    let key = [3u8; 32];
    let plain = [&key[..], b"hunter2"].concat();
    let sealed =
        mesh_proto::secret::encrypt(&[mesh::controller::age_identity(&me).to_public()], &plain)
            .map_err(std::io::Error::other)?;
    let mut file = format!(
        "{} db/PASSWORD (the value is encrypted below; this file may be committed)\n# set-by: fuzz\n# set-at: 2026-12-04T08:00:00Z\n# digest: {}\n",
        mesh::secrets::HEADER,
        mesh_proto::secret::digest(&key, b"hunter2")
    )
    .into_bytes();
    {
        let mut w =
            age::armor::ArmoredWriter::wrap_output(&mut file, age::armor::Format::AsciiArmor)
                .map_err(std::io::Error::other)?;
        w.write_all(&sealed)?;
        w.finish()?;
    }
    s.add("secret_file", "0-file", [&[0u8][..], &file].concat());
    s.add(
        "secret_file",
        "1-flip",
        [&[1u8, 200, 0, 0, 0, b'x'][..], b"hunter2"].concat(),
    );
    s.add("secret_file", "2-plain", [&[2u8][..], &plain].concat());
    s.add("secret_file", "2-short", b"\x02short".to_vec());
    s.add(
        "secret_file",
        "delivery",
        format!("{{\"declaration\":\"{a}\",\"values\":[{{\"digest\":\"{a}\",\"hex\":\"00ff\"}}]}}"),
    );

    s.write(&fuzz.join("seeds"))
}
