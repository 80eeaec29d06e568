//! A synchronous client of one REAPI engine: mesh stays synchronous, so the client owns a small
//! single-threaded runtime and blocks on each call, every call bounded by the configured
//! timeout. Blobs go in batches while they are small and through ByteStream when they are not;
//! every blob read back is checked against its digest.

use std::collections::HashMap;
use std::time::Duration;

use bazel_remote_apis::build::bazel::remote::execution::v2::{
    ActionResult, BatchReadBlobsRequest, BatchUpdateBlobsRequest, Digest, ExecuteRequest,
    ExecuteResponse, FindMissingBlobsRequest, GetActionResultRequest, GetCapabilitiesRequest,
    UpdateActionResultRequest, action_cache_client::ActionCacheClient, batch_update_blobs_request,
    capabilities_client::CapabilitiesClient,
    content_addressable_storage_client::ContentAddressableStorageClient,
    execution_client::ExecutionClient,
};
use bazel_remote_apis::google::bytestream::{
    ReadRequest, WriteRequest, byte_stream_client::ByteStreamClient,
};
use bazel_remote_apis::google::longrunning::operation;
use prost::Message;
use tonic::metadata::{Ascii, MetadataKey, MetadataValue};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

use super::merkle::{Blob, Tree, digest_of};

/// Blobs up to this size travel in batches (BuildGrid's batch limit is ~4 MB a request).
const BATCH_BYTES: usize = 2 << 20;

/// A ByteStream write sends blobs in chunks of this size.
const CHUNK: usize = 1 << 20;

/// What a failed call says of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Away, slow or refusing (no connection, no answer in time, unauthenticated): it is
    /// not asked again this run.
    Away,
    /// Busy (too many calls at once): worth asking again after a pause.
    Busy,
    /// It answered, but a blob was absent, malformed or not what its digest names: what it
    /// holds is not taken, the engine stays on.
    Content,
    /// Something here failed (a file to upload could not be read): the engine stays on.
    Local,
    /// The engine answered that it could not run an action (no worker, a queue timeout, an
    /// error of its own), or did not finish it in the time allowed: no verdict, the engine
    /// stays on.
    NotRun,
}

/// Why a call to the engine failed, as a sentence, and what it says of the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteError {
    /// What failed.
    pub why: String,
    /// What it says of the engine.
    pub kind: Kind,
}

impl RemoteError {
    /// A call that failed: the engine is away, slow or refusing.
    pub fn new(why: String) -> RemoteError {
        RemoteError {
            why,
            kind: Kind::Away,
        }
    }

    /// A blob that is absent, malformed or damaged.
    pub fn content(why: String) -> RemoteError {
        RemoteError {
            why,
            kind: Kind::Content,
        }
    }

    /// An action the engine did not run.
    pub fn not_run(why: String) -> RemoteError {
        RemoteError {
            why,
            kind: Kind::NotRun,
        }
    }

    /// A failure here, not the engine's.
    pub fn local(why: String) -> RemoteError {
        RemoteError {
            why,
            kind: Kind::Local,
        }
    }
}

impl std::fmt::Display for RemoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

impl std::error::Error for RemoteError {}

type Result<T> = std::result::Result<T, RemoteError>;

/// A failed call as an error; `NotFound` is a blob the engine lacks, not an engine away.
fn failed(what: &str) -> impl Fn(tonic::Status) -> RemoteError + '_ {
    move |s| {
        let why = format!("{what}: {} ({:?})", s.message(), s.code());
        match s.code() {
            // A blob it lacks, or a request about a digest it refuses (a malformed one).
            tonic::Code::NotFound | tonic::Code::InvalidArgument | tonic::Code::OutOfRange => {
                RemoteError::content(why)
            }
            tonic::Code::ResourceExhausted => RemoteError {
                why,
                kind: Kind::Busy,
            },
            _ => RemoteError::new(why),
        }
    }
}

/// One engine: its endpoint and instance, reached through one channel. Calls may come from
/// several build threads at once.
pub struct Remote {
    runtime: tokio::runtime::Runtime,
    channel: Channel,
    instance: String,
    timeout: Duration,
    /// Sent with every request: `[remote] headers` and the bearer token.
    headers: Vec<(MetadataKey<Ascii>, MetadataValue<Ascii>)>,
}

/// How to reach an engine beyond its address.
#[derive(Debug, Clone, Default)]
pub struct Reach {
    /// Request headers, lowercase names.
    pub headers: Vec<(String, String)>,
    /// A PEM CA for TLS (`None`: the system's roots).
    pub ca: Option<Vec<u8>>,
}

impl Reach {
    /// What `[remote]` says: its headers, the bearer token of `token_file` and the `ca` file,
    /// each read now; a file that cannot be read is an error naming it.
    pub fn of(cfg: &crate::config::RemoteConfig) -> Result<Reach> {
        let read = |p: &std::path::Path, what: &str| {
            std::fs::read(p).map_err(|e| {
                RemoteError::new(format!("cannot read the {what} {}: {e}", p.display()))
            })
        };
        let mut headers: Vec<(String, String)> = cfg.headers.clone().into_iter().collect();
        if let Some(f) = &cfg.token_file {
            let token = String::from_utf8_lossy(&read(f, "token file")?)
                .trim()
                .to_string();
            headers.push(("authorization".into(), format!("Bearer {token}")));
        }
        let ca = match &cfg.ca {
            Some(f) => Some(read(f, "CA file")?),
            None => None,
        };
        Ok(Reach { headers, ca })
    }
}

impl Remote {
    /// Connects to `endpoint` (`http://host:port`; `grpc://` is taken as `http://`), each call
    /// bounded by `timeout`.
    pub fn connect(endpoint: &str, instance: &str, timeout: Duration) -> Result<Remote> {
        Remote::connect_with(endpoint, instance, timeout, &Reach::default())
    }

    /// Connects as `[remote]` says.
    pub fn configured(cfg: &crate::config::RemoteConfig) -> Result<Remote> {
        Remote::connect_with(&cfg.endpoint, &cfg.instance, cfg.timeout, &Reach::of(cfg)?)
    }

    /// Connects to `endpoint` (`grpc://`, `grpcs://` over TLS, `http://`, `https://`), each
    /// call bounded by `timeout`, with `reach`'s headers and CA.
    pub fn connect_with(
        endpoint: &str,
        instance: &str,
        timeout: Duration,
        reach: &Reach,
    ) -> Result<Remote> {
        let url = if let Some(rest) = endpoint.strip_prefix("grpc://") {
            format!("http://{rest}")
        } else if let Some(rest) = endpoint.strip_prefix("grpcs://") {
            format!("https://{rest}")
        } else {
            endpoint.to_string()
        };
        let mut headers = Vec::new();
        for (name, value) in &reach.headers {
            let key = MetadataKey::from_bytes(name.as_bytes())
                .map_err(|_| RemoteError::new(format!("{name:?} is not a header name")))?;
            let value = value.parse().map_err(|_| {
                RemoteError::new(format!("the value of header {name:?} cannot be sent"))
            })?;
            headers.push((key, value));
        }
        // Two threads drive the calls of every build thread; mesh itself stays synchronous.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("mesh-remote")
            .enable_all()
            .build()
            .map_err(|e| RemoteError::new(format!("no runtime for the remote client: {e}")))?;
        // A vanished host is noticed during a long call (an execution) too.
        let mut ep = Endpoint::from_shared(url.clone())
            .map_err(|e| RemoteError::new(format!("{endpoint:?} is not an endpoint: {e}")))?
            .connect_timeout(timeout)
            .http2_keep_alive_interval(timeout)
            .keep_alive_timeout(timeout)
            .keep_alive_while_idle(true);
        if url.starts_with("https://") {
            let tls = match &reach.ca {
                Some(pem) => ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)),
                None => ClientTlsConfig::new().with_native_roots(),
            };
            ep = ep
                .tls_config(tls)
                .map_err(|e| RemoteError::new(format!("{endpoint}: TLS cannot be set up: {e}")))?;
        }
        // The TLS and HTTP/2 handshakes too, not only the TCP connect, within the timeout.
        let channel = runtime
            .block_on(async { tokio::time::timeout(timeout, ep.connect()).await })
            .map_err(|_| {
                RemoteError::new(format!(
                    "{endpoint} did not answer within {}",
                    humantime::format_duration(timeout)
                ))
            })?
            .map_err(|e| RemoteError::new(format!("{endpoint} cannot be reached: {e}")))?;
        Ok(Remote {
            runtime,
            channel,
            instance: instance.to_string(),
            timeout,
            headers,
        })
    }

    /// `msg` as a request carrying the configured headers.
    fn req<T>(&self, msg: T) -> tonic::Request<T> {
        let mut r = tonic::Request::new(msg);
        for (k, v) in &self.headers {
            r.metadata_mut().insert(k.clone(), v.clone());
        }
        r
    }

    /// Blocks on the call `f` makes, at most the timeout; an engine that says it is busy
    /// (`ResourceExhausted`: too many calls at once) is asked again after a pause, within it.
    fn run<T, F: std::future::Future<Output = Result<T>>>(
        &self,
        what: &str,
        f: impl FnMut() -> F,
    ) -> Result<T> {
        self.run_within(what, self.timeout, f)
    }

    /// [`Remote::run`] for a call that moves `bytes` through ByteStream: the timeout, and a
    /// second more for every MiB (a large output is not the engine away).
    fn run_sized<T, F: std::future::Future<Output = Result<T>>>(
        &self,
        what: &str,
        bytes: u64,
        f: impl FnMut() -> F,
    ) -> Result<T> {
        self.run_within(what, self.timeout + Duration::from_secs(bytes >> 20), f)
    }

    /// [`Remote::run`] within `within`.
    fn run_within<T, F: std::future::Future<Output = Result<T>>>(
        &self,
        what: &str,
        within: Duration,
        mut f: impl FnMut() -> F,
    ) -> Result<T> {
        self.runtime.block_on(async {
            let deadline = tokio::time::Instant::now() + within;
            let mut pause = Duration::from_millis(10);
            loop {
                match tokio::time::timeout_at(deadline, f()).await {
                    Ok(Err(e))
                        if e.kind == Kind::Busy
                            && tokio::time::Instant::now() + pause < deadline =>
                    {
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(Duration::from_millis(500));
                    }
                    Ok(r) => return r,
                    Err(_) => {
                        return Err(RemoteError::new(format!(
                            "{what}: no answer within {}",
                            humantime::format_duration(within)
                        )));
                    }
                }
            }
        })
    }

    /// Whether the engine speaks SHA-256, as mesh names everything.
    pub fn check(&self) -> Result<()> {
        let c = CapabilitiesClient::new(self.channel.clone());
        let req = GetCapabilitiesRequest {
            instance_name: self.instance.clone(),
        };
        let caps = self.run("capabilities", || {
            let mut c = c.clone();
            let req = self.req(req.clone());
            async move {
                c.get_capabilities(req)
                    .await
                    .map(|r| r.into_inner())
                    .map_err(failed("capabilities"))
            }
        })?;
        let sha256 = 1;
        match caps.cache_capabilities {
            Some(c) if c.digest_functions.contains(&sha256) => Ok(()),
            _ => Err(RemoteError::new(
                "the engine does not store SHA-256 blobs".into(),
            )),
        }
    }

    /// Which of `digests` the CAS lacks.
    pub fn find_missing(&self, digests: Vec<Digest>) -> Result<Vec<Digest>> {
        let c = ContentAddressableStorageClient::new(self.channel.clone());
        let req = FindMissingBlobsRequest {
            instance_name: self.instance.clone(),
            blob_digests: digests,
            digest_function: 0,
        };
        self.run("find missing blobs", || {
            let mut c = c.clone();
            let req = self.req(req.clone());
            async move {
                c.find_missing_blobs(req)
                    .await
                    .map(|r| r.into_inner().missing_blob_digests)
                    .map_err(failed("find missing blobs"))
            }
        })
    }

    /// Uploads every blob of `tree` the CAS lacks; how many went.
    pub fn upload(&self, tree: &Tree) -> Result<usize> {
        let all: Vec<Digest> = tree
            .blobs
            .iter()
            .map(|(hash, b)| Digest {
                hash: hash.clone(),
                size_bytes: match b {
                    Blob::Bytes(bytes) => bytes.len() as i64,
                    Blob::File(_, n) => *n as i64,
                },
            })
            .collect();
        let missing = self.find_missing(all)?;
        let mut batch: Vec<batch_update_blobs_request::Request> = Vec::new();
        let mut batched = 0usize;
        for d in &missing {
            let data = match tree.blobs.get(&d.hash) {
                Some(Blob::Bytes(b)) => b.clone(),
                Some(Blob::File(path, _)) => std::fs::read(path)
                    .map_err(|e| RemoteError::local(format!("{}: {e}", path.display())))?,
                None => continue,
            };
            if digest_of(&data) != *d {
                return Err(RemoteError::local(format!(
                    "blob {} changed while it was uploaded",
                    d.hash
                )));
            }
            if data.len() > BATCH_BYTES {
                self.write(d, data)?;
                continue;
            }
            if batched + data.len() > BATCH_BYTES {
                self.update(std::mem::take(&mut batch))?;
                batched = 0;
            }
            batched += data.len();
            batch.push(batch_update_blobs_request::Request {
                digest: Some(d.clone()),
                data,
                compressor: 0,
            });
        }
        if !batch.is_empty() {
            self.update(batch)?;
        }
        Ok(missing.len())
    }

    /// One BatchUpdateBlobs call; any blob it did not take is an error.
    fn update(&self, requests: Vec<batch_update_blobs_request::Request>) -> Result<()> {
        let c = ContentAddressableStorageClient::new(self.channel.clone());
        let req = BatchUpdateBlobsRequest {
            instance_name: self.instance.clone(),
            requests,
            digest_function: 0,
        };
        let answer = self.run("upload blobs", || {
            let mut c = c.clone();
            let req = self.req(req.clone());
            async move {
                c.batch_update_blobs(req)
                    .await
                    .map(|r| r.into_inner())
                    .map_err(failed("upload blobs"))
            }
        })?;
        for r in answer.responses {
            if let Some(s) = r.status.filter(|s| s.code != 0) {
                let hash = r.digest.map(|d| d.hash).unwrap_or_default();
                return Err(RemoteError::new(format!(
                    "blob {hash} was not taken: {}",
                    s.message
                )));
            }
        }
        Ok(())
    }

    /// One blob through ByteStream's Write, in chunks.
    fn write(&self, d: &Digest, data: Vec<u8>) -> Result<()> {
        let c = ByteStreamClient::new(self.channel.clone());
        let uuid = mesh_proto::keys::hex(&rand_bytes());
        let name = format!(
            "{}uploads/{uuid}/blobs/{}/{}",
            self.prefix(),
            d.hash,
            d.size_bytes
        );
        let total = data.len();
        let chunks: Vec<WriteRequest> = data
            .chunks(CHUNK)
            .enumerate()
            .map(|(i, chunk)| WriteRequest {
                resource_name: if i == 0 { name.clone() } else { String::new() },
                write_offset: (i * CHUNK) as i64,
                finish_write: (i + 1) * CHUNK >= total,
                data: chunk.to_vec(),
            })
            .collect();
        let committed = self.run_sized("write a blob", total as u64, || {
            let mut c = c.clone();
            let req = self.req(tokio_stream::iter(chunks.clone()));
            async move {
                c.write(req)
                    .await
                    .map(|r| r.into_inner().committed_size)
                    .map_err(failed("write a blob"))
            }
        })?;
        match committed as usize == total {
            true => Ok(()),
            false => Err(RemoteError::new(format!(
                "blob {}: the engine took {committed} of {total} bytes",
                d.hash
            ))),
        }
    }

    /// The blob `d`, checked against its digest: batched when small, through ByteStream when
    /// not.
    pub fn read(&self, d: &Digest) -> Result<Vec<u8>> {
        well_formed(d)?;
        let data = match d.size_bytes as usize > BATCH_BYTES {
            true => self.read_stream(d)?,
            false => {
                let mut one = HashMap::new();
                self.read_batch_into(vec![d.clone()], &mut one)?;
                one.remove(&d.hash).unwrap_or_default()
            }
        };
        checked(d, &data)?;
        Ok(data)
    }

    fn read_stream(&self, d: &Digest) -> Result<Vec<u8>> {
        let c = ByteStreamClient::new(self.channel.clone());
        let req = ReadRequest {
            resource_name: format!("{}blobs/{}/{}", self.prefix(), d.hash, d.size_bytes),
            read_offset: 0,
            read_limit: 0,
        };
        // What the digest says, never more than the largest blob read in one piece.
        let cap = usize::try_from(d.size_bytes).unwrap_or(0);
        let start = cap.min(BATCH_BYTES * 8);
        self.run_sized("read a blob", cap as u64, || {
            let mut c = c.clone();
            let req = self.req(req.clone());
            async move {
                let mut stream = c
                    .read(req)
                    .await
                    .map_err(failed("read a blob"))?
                    .into_inner();
                let mut out = Vec::with_capacity(start);
                while let Some(part) = stream.message().await.map_err(failed("read a blob"))? {
                    out.extend_from_slice(&part.data);
                    if out.len() > cap {
                        return Err(RemoteError::new(format!(
                            "blob {}: longer than its digest says",
                            d.hash
                        )));
                    }
                }
                Ok(out)
            }
        })
    }

    /// The ActionCache's result for `action`; `None` when it has none (a miss, not an error).
    pub fn action_result(&self, action: &Digest) -> Result<Option<ActionResult>> {
        let c = ActionCacheClient::new(self.channel.clone());
        let req = GetActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            inline_stdout: false,
            inline_stderr: false,
            inline_output_files: Vec::new(),
            digest_function: 0,
        };
        self.run("ask the action cache", || {
            let mut c = c.clone();
            let req = self.req(req.clone());
            async move {
                match c.get_action_result(req).await {
                    Ok(r) => Ok(Some(r.into_inner())),
                    Err(s) if s.code() == tonic::Code::NotFound => Ok(None),
                    Err(s) => Err(failed("ask the action cache")(s)),
                }
            }
        })
    }

    /// Writes `result` as the ActionCache's result for `action` (its outputs uploaded first).
    pub fn put_action_result(&self, action: &Digest, result: ActionResult) -> Result<()> {
        let c = ActionCacheClient::new(self.channel.clone());
        let req = UpdateActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            action_result: Some(result),
            results_cache_policy: None,
            digest_function: 0,
        };
        self.run("write to the action cache", || {
            let mut c = c.clone();
            let req = self.req(req.clone());
            async move {
                c.update_action_result(req)
                    .await
                    .map(|_| ())
                    .map_err(failed("write to the action cache"))
            }
        })
    }

    /// Every blob of `digests`, each checked against its digest, by hash: the small ones
    /// batched, the large ones streamed.
    pub fn read_many(&self, digests: &[Digest]) -> Result<HashMap<String, Vec<u8>>> {
        let mut out = HashMap::new();
        let mut batch: Vec<Digest> = Vec::new();
        let mut batched = 0usize;
        for d in digests {
            well_formed(d)?;
        }
        let mut unique: Vec<&Digest> = digests.iter().collect();
        unique.sort_by(|a, b| a.hash.cmp(&b.hash));
        unique.dedup_by(|a, b| a.hash == b.hash);
        for d in unique {
            let size = usize::try_from(d.size_bytes).unwrap_or(usize::MAX);
            if size > BATCH_BYTES {
                out.insert(d.hash.clone(), self.read(d)?);
                continue;
            }
            if batched + size > BATCH_BYTES {
                self.read_batch_into(std::mem::take(&mut batch), &mut out)?;
                batched = 0;
            }
            batched += size;
            batch.push(d.clone());
        }
        if !batch.is_empty() {
            self.read_batch_into(batch, &mut out)?;
        }
        Ok(out)
    }

    /// One BatchReadBlobs call for `digests`, each answer checked and added to `out`.
    fn read_batch_into(
        &self,
        digests: Vec<Digest>,
        out: &mut HashMap<String, Vec<u8>>,
    ) -> Result<()> {
        let c = ContentAddressableStorageClient::new(self.channel.clone());
        let asked = digests.clone();
        let req = BatchReadBlobsRequest {
            instance_name: self.instance.clone(),
            digests,
            acceptable_compressors: Vec::new(),
            digest_function: 0,
        };
        let answer = self.run("read blobs", || {
            let mut c = c.clone();
            let req = self.req(req.clone());
            async move {
                c.batch_read_blobs(req)
                    .await
                    .map(|r| r.into_inner())
                    .map_err(failed("read blobs"))
            }
        })?;
        for r in answer.responses {
            let d = r.digest.clone().unwrap_or_default();
            if let Some(s) = r.status.filter(|s| s.code != 0) {
                return Err(RemoteError::content(format!(
                    "blob {} cannot be read: {}",
                    d.hash, s.message
                )));
            }
            checked(&d, &r.data)?;
            out.insert(d.hash, r.data);
        }
        match asked.iter().find(|d| !out.contains_key(&d.hash)) {
            Some(d) => Err(RemoteError::content(format!("blob {}: no answer", d.hash))),
            None => Ok(()),
        }
    }

    /// Runs `action` on the engine's workers and waits for its end, at most `within` (the
    /// build's own time and the queue's). `Err` when the engine could not run it (no worker,
    /// a queue timeout, an engine error): no verdict; `Ok` holds the action's result however
    /// its command ended.
    pub fn execute(&self, action: &Digest, within: Duration) -> Result<ActionResult> {
        let mut c = ExecutionClient::new(self.channel.clone());
        let req = ExecuteRequest {
            instance_name: self.instance.clone(),
            skip_cache_lookup: true,
            action_digest: Some(action.clone()),
            execution_policy: None,
            results_cache_policy: None,
            digest_function: 0,
            ..Default::default()
        };
        let what = "run on the engine";
        let done = self.runtime.block_on(async {
            let call = async {
                let mut stream = c
                    .execute(self.req(req))
                    .await
                    .map_err(failed(what))?
                    .into_inner();
                loop {
                    match stream.message().await.map_err(failed(what))? {
                        Some(op) if op.done => return Ok(op),
                        Some(_) => {}
                        None => {
                            return Err(RemoteError::new(format!(
                                "{what}: the engine ended the call before the build ended"
                            )));
                        }
                    }
                }
            };
            match tokio::time::timeout(within, call).await {
                Ok(r) => r,
                Err(_) => Err(RemoteError::not_run(format!(
                    "{what}: not done within {}",
                    humantime::format_duration(within)
                ))),
            }
        })?;
        let response = match done.result {
            Some(operation::Result::Response(any)) => ExecuteResponse::decode(&any.value[..])
                .map_err(|e| {
                    RemoteError::not_run(format!("{what}: the engine's answer cannot be read: {e}"))
                })?,
            Some(operation::Result::Error(s)) => {
                return Err(RemoteError::not_run(format!(
                    "{what}: {} (code {})",
                    s.message, s.code
                )));
            }
            None => {
                return Err(RemoteError::not_run(format!(
                    "{what}: the engine gave no result"
                )));
            }
        };
        if let Some(s) = response.status.as_ref().filter(|s| s.code != 0) {
            return Err(RemoteError::not_run(format!(
                "{what}: {} (code {})",
                s.message, s.code
            )));
        }
        response
            .result
            .ok_or_else(|| RemoteError::not_run(format!("{what}: the engine gave no result")))
    }

    /// `instance/` or nothing: what ByteStream resource names start with.
    fn prefix(&self) -> String {
        match self.instance.is_empty() {
            true => String::new(),
            false => format!("{}/", self.instance),
        }
    }
}

/// Whether `d` is a digest at all (64 hex digits, a size not below zero): a result from
/// elsewhere may name anything.
fn well_formed(d: &Digest) -> Result<()> {
    let hex = d.hash.len() == 64 && d.hash.bytes().all(|b| b.is_ascii_hexdigit());
    match hex && d.size_bytes >= 0 {
        true => Ok(()),
        false => Err(RemoteError::content(format!(
            "{:?}/{} is not a SHA-256 digest",
            d.hash, d.size_bytes
        ))),
    }
}

/// Whether `data` is the blob `d` names; an error that says so when not.
fn checked(d: &Digest, data: &[u8]) -> Result<()> {
    match digest_of(data) == *d {
        true => Ok(()),
        false => Err(RemoteError::content(format!(
            "blob {} does not match its digest (the engine's copy is damaged, or not what was asked)",
            d.hash
        ))),
    }
}

/// 16 random bytes (an upload's id), or zeros when the system gives none (an id need only be
/// unique among this client's uploads in flight).
fn rand_bytes() -> [u8; 16] {
    let mut b = [0u8; 16];
    let _ = getrandom::fill(&mut b);
    b
}
