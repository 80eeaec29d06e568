//! A synchronous client of one REAPI engine: mesh stays synchronous, so the client owns a small
//! single-threaded runtime and blocks on each call, every call bounded by the configured
//! timeout. Blobs go in batches while they are small and through ByteStream when they are not;
//! every blob read back is checked against its digest.

use std::time::Duration;

use bazel_remote_apis::build::bazel::remote::execution::v2::{
    ActionResult, BatchReadBlobsRequest, BatchUpdateBlobsRequest, Digest, FindMissingBlobsRequest,
    GetActionResultRequest, GetCapabilitiesRequest, UpdateActionResultRequest,
    action_cache_client::ActionCacheClient, batch_update_blobs_request,
    capabilities_client::CapabilitiesClient,
    content_addressable_storage_client::ContentAddressableStorageClient,
};
use bazel_remote_apis::google::bytestream::{
    ReadRequest, WriteRequest, byte_stream_client::ByteStreamClient,
};
use tonic::transport::{Channel, Endpoint};

use super::merkle::{Blob, Tree, digest_of};

/// Blobs up to this size travel in batches (BuildGrid's batch limit is ~4 MB a request).
const BATCH_BYTES: usize = 2 << 20;

/// A ByteStream write sends blobs in chunks of this size.
const CHUNK: usize = 1 << 20;

/// Why a call to the engine failed, as a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteError(pub String);

impl std::fmt::Display for RemoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RemoteError {}

type Result<T> = std::result::Result<T, RemoteError>;

fn failed(what: &str) -> impl Fn(tonic::Status) -> RemoteError + '_ {
    move |s| RemoteError(format!("{what}: {} ({:?})", s.message(), s.code()))
}

/// One engine: its endpoint and instance, reached through one channel.
pub struct Remote {
    runtime: tokio::runtime::Runtime,
    channel: Channel,
    instance: String,
    timeout: Duration,
}

impl Remote {
    /// Connects to `endpoint` (`http://host:port`; `grpc://` is taken as `http://`), each call
    /// bounded by `timeout`.
    pub fn connect(endpoint: &str, instance: &str, timeout: Duration) -> Result<Remote> {
        let url = match endpoint.strip_prefix("grpc://") {
            Some(rest) => format!("http://{rest}"),
            None => endpoint.to_string(),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| RemoteError(format!("no runtime for the remote client: {e}")))?;
        let ep = Endpoint::from_shared(url)
            .map_err(|e| RemoteError(format!("{endpoint:?} is not an endpoint: {e}")))?
            .connect_timeout(timeout)
            .timeout(timeout);
        let channel = runtime
            .block_on(ep.connect())
            .map_err(|e| RemoteError(format!("{endpoint} cannot be reached: {e}")))?;
        Ok(Remote {
            runtime,
            channel,
            instance: instance.to_string(),
            timeout,
        })
    }

    /// Blocks on `f`, at most the timeout.
    fn run<T>(&self, what: &str, f: impl std::future::Future<Output = Result<T>>) -> Result<T> {
        self.runtime.block_on(async {
            match tokio::time::timeout(self.timeout, f).await {
                Ok(r) => r,
                Err(_) => Err(RemoteError(format!(
                    "{what}: no answer within {}",
                    humantime::format_duration(self.timeout)
                ))),
            }
        })
    }

    /// Whether the engine speaks SHA-256, as mesh names everything.
    pub fn check(&self) -> Result<()> {
        let mut c = CapabilitiesClient::new(self.channel.clone());
        let req = GetCapabilitiesRequest {
            instance_name: self.instance.clone(),
        };
        let caps = self.run("capabilities", async {
            c.get_capabilities(req)
                .await
                .map(|r| r.into_inner())
                .map_err(failed("capabilities"))
        })?;
        let sha256 = 1;
        match caps.cache_capabilities {
            Some(c) if c.digest_functions.contains(&sha256) => Ok(()),
            _ => Err(RemoteError(
                "the engine does not store SHA-256 blobs".into(),
            )),
        }
    }

    /// Which of `digests` the CAS lacks.
    pub fn find_missing(&self, digests: Vec<Digest>) -> Result<Vec<Digest>> {
        let mut c = ContentAddressableStorageClient::new(self.channel.clone());
        let req = FindMissingBlobsRequest {
            instance_name: self.instance.clone(),
            blob_digests: digests,
            digest_function: 0,
        };
        self.run("find missing blobs", async {
            c.find_missing_blobs(req)
                .await
                .map(|r| r.into_inner().missing_blob_digests)
                .map_err(failed("find missing blobs"))
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
                    .map_err(|e| RemoteError(format!("{}: {e}", path.display())))?,
                None => continue,
            };
            if digest_of(&data) != *d {
                return Err(RemoteError(format!(
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
        let mut c = ContentAddressableStorageClient::new(self.channel.clone());
        let req = BatchUpdateBlobsRequest {
            instance_name: self.instance.clone(),
            requests,
            digest_function: 0,
        };
        let answer = self.run("upload blobs", async {
            c.batch_update_blobs(req)
                .await
                .map(|r| r.into_inner())
                .map_err(failed("upload blobs"))
        })?;
        for r in answer.responses {
            if let Some(s) = r.status.filter(|s| s.code != 0) {
                let hash = r.digest.map(|d| d.hash).unwrap_or_default();
                return Err(RemoteError(format!(
                    "blob {hash} was not taken: {}",
                    s.message
                )));
            }
        }
        Ok(())
    }

    /// One blob through ByteStream's Write, in chunks.
    fn write(&self, d: &Digest, data: Vec<u8>) -> Result<()> {
        let mut c = ByteStreamClient::new(self.channel.clone());
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
        let committed = self.run("write a blob", async {
            c.write(tokio_stream::iter(chunks))
                .await
                .map(|r| r.into_inner().committed_size)
                .map_err(failed("write a blob"))
        })?;
        match committed as usize == total {
            true => Ok(()),
            false => Err(RemoteError(format!(
                "blob {}: the engine took {committed} of {total} bytes",
                d.hash
            ))),
        }
    }

    /// The blob `d`, checked against its digest: batched when small, through ByteStream when
    /// not.
    pub fn read(&self, d: &Digest) -> Result<Vec<u8>> {
        let data = match d.size_bytes as usize > BATCH_BYTES {
            true => self.read_stream(d)?,
            false => self.read_batch(d)?,
        };
        if digest_of(&data) != *d {
            return Err(RemoteError(format!(
                "blob {} does not match its digest (the engine's copy is damaged, or not what was asked)",
                d.hash
            )));
        }
        Ok(data)
    }

    fn read_batch(&self, d: &Digest) -> Result<Vec<u8>> {
        let mut c = ContentAddressableStorageClient::new(self.channel.clone());
        let req = BatchReadBlobsRequest {
            instance_name: self.instance.clone(),
            digests: vec![d.clone()],
            acceptable_compressors: Vec::new(),
            digest_function: 0,
        };
        let answer = self.run("read a blob", async {
            c.batch_read_blobs(req)
                .await
                .map(|r| r.into_inner())
                .map_err(failed("read a blob"))
        })?;
        match answer.responses.into_iter().next() {
            Some(r) if r.status.as_ref().is_none_or(|s| s.code == 0) => Ok(r.data),
            Some(r) => Err(RemoteError(format!(
                "blob {}: {}",
                d.hash,
                r.status.map(|s| s.message).unwrap_or_default()
            ))),
            None => Err(RemoteError(format!("blob {}: no answer", d.hash))),
        }
    }

    fn read_stream(&self, d: &Digest) -> Result<Vec<u8>> {
        let mut c = ByteStreamClient::new(self.channel.clone());
        let req = ReadRequest {
            resource_name: format!("{}blobs/{}/{}", self.prefix(), d.hash, d.size_bytes),
            read_offset: 0,
            read_limit: 0,
        };
        let cap = d.size_bytes as usize;
        self.run("read a blob", async {
            let mut stream = c
                .read(req)
                .await
                .map_err(failed("read a blob"))?
                .into_inner();
            let mut out = Vec::with_capacity(cap);
            while let Some(part) = stream.message().await.map_err(failed("read a blob"))? {
                out.extend_from_slice(&part.data);
                if out.len() > cap {
                    return Err(RemoteError(format!(
                        "blob {}: longer than its digest says",
                        d.hash
                    )));
                }
            }
            Ok(out)
        })
    }

    /// The ActionCache's result for `action`; `None` when it has none (a miss, not an error).
    pub fn action_result(&self, action: &Digest) -> Result<Option<ActionResult>> {
        let mut c = ActionCacheClient::new(self.channel.clone());
        let req = GetActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            inline_stdout: false,
            inline_stderr: false,
            inline_output_files: Vec::new(),
            digest_function: 0,
        };
        self.run("ask the action cache", async {
            match c.get_action_result(req).await {
                Ok(r) => Ok(Some(r.into_inner())),
                Err(s) if s.code() == tonic::Code::NotFound => Ok(None),
                Err(s) => Err(failed("ask the action cache")(s)),
            }
        })
    }

    /// Writes `result` as the ActionCache's result for `action` (its outputs uploaded first).
    pub fn put_action_result(&self, action: &Digest, result: ActionResult) -> Result<()> {
        let mut c = ActionCacheClient::new(self.channel.clone());
        let req = UpdateActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            action_result: Some(result),
            results_cache_policy: None,
            digest_function: 0,
        };
        self.run("write to the action cache", async {
            c.update_action_result(req)
                .await
                .map(|_| ())
                .map_err(failed("write to the action cache"))
        })
    }

    /// `instance/` or nothing: what ByteStream resource names start with.
    fn prefix(&self) -> String {
        match self.instance.is_empty() {
            true => String::new(),
            false => format!("{}/", self.instance),
        }
    }
}

/// 16 random bytes (an upload's id), or zeros when the system gives none (an id need only be
/// unique among this client's uploads in flight).
fn rand_bytes() -> [u8; 16] {
    let mut b = [0u8; 16];
    let _ = getrandom::fill(&mut b);
    b
}
