//! `mcpdesc tap --listen ADDR --upstream URL`: a reverse proxy for MCP's Streamable HTTP
//! transport. Each request goes to the upstream with its end-to-end headers, and each
//! answer comes back as it arrives: its status, its headers and its body, chunk by chunk,
//! so that an event of a `text/event-stream` body reaches the client at once. What passes
//! is handed to the checker on the side.

use std::convert::Infallible;
use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use anyhow::{bail, Context as _, Result};
use bytes::Bytes;
use http_body_util::BodyExt as _;
use hyper::body::{Body, Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use tokio::sync::{mpsc, oneshot};

use crate::exit::ExitCode;
use crate::tap_check::{Checker, Settings};
use crate::tap_pump::{Dir, Shared};
use crate::tap_sse::Events;

/// The largest request body forwarded: a client's JSON-RPC message, kept whole to be sent
/// on and checked.
const MAX_REQUEST: usize = 64 * 1024 * 1024;
/// Bytes read from the upstream at once.
const CHUNK: usize = 64 * 1024;
/// Chunks read from the upstream and not yet taken by the client, per answer.
const IN_TRANSIT: usize = 16;

pub(crate) fn run(listen: &str, upstream: &str, settings: Settings) -> Result<ExitCode> {
    let upstream_url =
        url::Url::parse(upstream).with_context(|| format!("--upstream {upstream} is no URL"))?;
    if !matches!(upstream_url.scheme(), "http" | "https") {
        bail!("--upstream {upstream} is neither an http:// nor an https:// URL");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the proxy's runtime")?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(listen))
        .with_context(|| format!("cannot listen on {listen}"))?;
    let local = listener.local_addr()?;
    let checker = Checker::start(settings)?;
    let proxy = Arc::new(Proxy {
        agent: ureq::Agent::config_builder()
            // The upstream's error statuses and redirects are the client's to see.
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .into(),
        upstream: upstream_url,
        shared: Arc::clone(checker.shared()),
        max: checker.max_message(),
    });
    let stop = {
        let _runtime = runtime.enter();
        stopped().context("cannot watch for the signals that stop the tap")?
    };
    // A closed standard error must not stop the proxy.
    let _ = writeln!(
        std::io::stderr(),
        "mcpdesc tap: listening on http://{local}, forwarding to {}",
        render_url(&proxy.upstream)
    );
    runtime.block_on(serve(listener, proxy, stop));
    // Answers still streaming are cut off; their upstream readers end at their next read.
    runtime.shutdown_background();
    checker.finish();
    Ok(ExitCode::SUCCESS)
}

fn render_url(url: &url::Url) -> String {
    crate::render::safe::escape(url.as_str()).into_owned()
}

/// Accepts connections until SIGINT, SIGTERM or SIGHUP.
async fn serve(
    listener: tokio::net::TcpListener,
    proxy: Arc<Proxy>,
    stop: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => {
                // A failed accept (out of descriptors, say) is the one client's trouble.
                if let Ok((stream, peer)) = accepted {
                    tokio::spawn(connection(stream, peer, Arc::clone(&proxy)));
                }
            }
        }
    }
}

/// Resolves at the first SIGINT, SIGTERM or SIGHUP. The handlers are in place once it
/// returns, before the address is printed, so that a signal sent as soon as the tap is seen
/// to listen ends it with its summary.
#[cfg(unix)]
fn stopped() -> Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    let mut hup = signal(SignalKind::hangup())?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
            _ = hup.recv() => {}
        }
    })
}

#[cfg(not(unix))]
fn stopped() -> Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

async fn connection(stream: tokio::net::TcpStream, _peer: SocketAddr, proxy: Arc<Proxy>) {
    let service = hyper::service::service_fn(move |req| {
        let proxy = Arc::clone(&proxy);
        async move { Ok::<_, Infallible>(proxy.forward(req).await) }
    });
    // A client that breaks off its connection ends only that connection.
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
        .await;
}

struct Proxy {
    agent: ureq::Agent,
    upstream: url::Url,
    shared: Arc<Shared>,
    max: usize,
}

impl Proxy {
    async fn forward(self: Arc<Self>, req: Request<Incoming>) -> Response<Streamed> {
        let (parts, body) = req.into_parts();
        let body = match http_body_util::Limited::new(body, MAX_REQUEST)
            .collect()
            .await
        {
            Ok(collected) => collected.to_bytes(),
            Err(_) => {
                return answer(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("mcpdesc tap: a request body is at most {MAX_REQUEST} bytes\n"),
                )
            }
        };
        if !body.is_empty() && is_plain(&parts.headers) {
            self.shared.offer(Dir::C2s, &body, self.max);
        }
        let target = target(
            &self.upstream,
            parts.uri.path_and_query().map_or("/", |p| p.as_str()),
        );
        let mut upstream = ureq::http::Request::builder()
            .method(parts.method.clone())
            .uri(target.as_str());
        for (name, value) in end_to_end(&parts.headers) {
            if name != header::HOST && name != header::CONTENT_LENGTH {
                upstream = upstream.header(name, value);
            }
        }
        let Ok(upstream) = upstream.body(body.to_vec()) else {
            return answer(
                StatusCode::BAD_GATEWAY,
                "mcpdesc tap: the request cannot be forwarded\n".to_owned(),
            );
        };
        let (head_tx, head_rx) = oneshot::channel();
        let (chunks_tx, chunks_rx) = mpsc::channel(IN_TRANSIT);
        let proxy = Arc::clone(&self);
        // The upstream client blocks: each answer is read on a thread of its own.
        tokio::task::spawn_blocking(move || proxy.exchange(upstream, head_tx, chunks_tx));
        match head_rx.await {
            Ok(Ok((status, headers))) => {
                let mut response = Response::new(Streamed { chunks: chunks_rx });
                *response.status_mut() = status;
                *response.headers_mut() = headers;
                response
            }
            Ok(Err(why)) => answer(
                StatusCode::BAD_GATEWAY,
                format!(
                    "mcpdesc tap: the upstream {} did not answer: {}\n",
                    render_url(&self.upstream),
                    crate::render::safe::escape(&why)
                ),
            ),
            Err(_) => answer(
                StatusCode::BAD_GATEWAY,
                "mcpdesc tap: the upstream did not answer\n".to_owned(),
            ),
        }
    }

    /// Sends the request, hands the answer's head over, then streams its body chunk by
    /// chunk until it ends, fails, or the client is gone.
    fn exchange(
        &self,
        request: ureq::http::Request<Vec<u8>>,
        head: oneshot::Sender<Result<(StatusCode, HeaderMap), String>>,
        chunks: mpsc::Sender<Bytes>,
    ) {
        let response = if request.body().is_empty() {
            self.agent.run(request.map(|_| ()))
        } else {
            self.agent.run(request)
        };
        let response = match response {
            Ok(r) => r,
            Err(e) => {
                let _ = head.send(Err(e.to_string()));
                return;
            }
        };
        let (parts, body) = response.into_parts();
        let mut headers = HeaderMap::new();
        for (name, value) in end_to_end(&parts.headers) {
            headers.append(name.clone(), value.clone());
        }
        let mut messages = Messages::of(&parts.headers, self.max);
        if head.send(Ok((parts.status, headers))).is_err() {
            return;
        }
        let mut reader = body.into_reader();
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            // Sent on before it is looked at: checking never delays the answer.
            if chunks
                .blocking_send(Bytes::copy_from_slice(&buf[..n]))
                .is_err()
            {
                break;
            }
            messages.feed(&buf[..n], &self.shared);
        }
        messages.end(&self.shared);
    }
}

/// How the messages of an answer's body are found.
enum Messages {
    /// A JSON body, kept (up to the limit) to be checked whole.
    Json {
        body: Vec<u8>,
        bytes: usize,
        max: usize,
    },
    Events(Events),
    /// Not a message the rules judge (or compressed).
    Other,
}

impl Messages {
    fn of(headers: &HeaderMap, max: usize) -> Messages {
        if !is_plain(headers) {
            return Messages::Other;
        }
        let kind = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            });
        match kind.as_deref() {
            Some("application/json") => Messages::Json {
                body: Vec::new(),
                bytes: 0,
                max,
            },
            Some("text/event-stream") => Messages::Events(Events::new(max)),
            _ => Messages::Other,
        }
    }

    fn feed(&mut self, piece: &[u8], shared: &Shared) {
        match self {
            Messages::Json { body, bytes, max } => {
                *bytes += piece.len();
                let keep = (*max + 1).saturating_sub(body.len()).min(piece.len());
                body.extend_from_slice(&piece[..keep]);
            }
            Messages::Events(events) => events.feed(piece, shared),
            Messages::Other => {}
        }
    }

    fn end(self, shared: &Shared) {
        if let Messages::Json { body, bytes, max } = self {
            if bytes > max {
                shared.too_large(Dir::S2c, bytes, &body);
            } else if bytes > 0 {
                shared.offer(Dir::S2c, &body, max);
            }
        }
    }
}

/// The upstream URL of a request to `path_and_query`: its path after the upstream's
/// (`/` alone is the upstream's own), its query.
fn target(upstream: &url::Url, path_and_query: &str) -> url::Url {
    let mut url = upstream.clone();
    let (path, query) = match path_and_query.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path_and_query, None),
    };
    if path != "/" {
        let base = upstream.path().trim_end_matches('/');
        url.set_path(&format!("{base}{path}"));
    }
    if query.is_some() {
        url.set_query(query);
    }
    url
}

/// A body with no content coding: its bytes are the message.
fn is_plain(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.trim().eq_ignore_ascii_case("identity"))
}

/// The headers meant for the other end: all but the hop-by-hop ones (RFC 9110 §7.6.1),
/// including those the `Connection` header names.
fn end_to_end(headers: &HeaderMap) -> impl Iterator<Item = (&HeaderName, &HeaderValue)> {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_ascii_lowercase())
        .collect();
    headers.iter().filter(move |(name, _)| {
        !matches!(
            name.as_str(),
            "connection"
                | "keep-alive"
                | "proxy-connection"
                | "proxy-authenticate"
                | "proxy-authorization"
                | "te"
                | "trailer"
                | "transfer-encoding"
                | "upgrade"
                // The whole body is in hand before it is sent on.
                | "expect"
        ) && !named.iter().any(|n| n == name.as_str())
    })
}

/// An answer of the tap's own.
fn answer(status: StatusCode, text: String) -> Response<Streamed> {
    let (tx, chunks) = mpsc::channel(1);
    let _ = tx.try_send(Bytes::from(text));
    let mut response = Response::new(Streamed { chunks });
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A body that is sent as its chunks arrive; it ends when their sender is gone.
struct Streamed {
    chunks: mpsc::Receiver<Bytes>,
}

impl Body for Streamed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.chunks
            .poll_recv(cx)
            .map(|chunk| chunk.map(|c| Ok(Frame::data(c))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_path_goes_after_the_upstream_path() {
        let t = |up: &str, p: &str| target(&url::Url::parse(up).unwrap(), p).to_string();
        assert_eq!(t("http://h:1/mcp", "/"), "http://h:1/mcp");
        assert_eq!(t("http://h:1", "/mcp?x=1"), "http://h:1/mcp?x=1");
        assert_eq!(t("https://h/base/", "/mcp"), "https://h/base/mcp");
    }

    #[test]
    fn hop_by_hop_headers_and_those_connection_names_stay_behind() {
        let mut h = HeaderMap::new();
        for (n, v) in [
            ("connection", "keep-alive, x-private"),
            ("x-private", "1"),
            ("transfer-encoding", "chunked"),
            ("mcp-session-id", "s"),
            ("authorization", "Bearer t"),
        ] {
            h.append(
                HeaderName::from_static(n),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        let kept: Vec<&str> = end_to_end(&h).map(|(n, _)| n.as_str()).collect();
        assert_eq!(kept, ["mcp-session-id", "authorization"]);
    }
}
