package org.vectorbert.loader.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Hugging Face hub served on loopback, answering as the real one does: {@code /REPO/resolve/REV/FILE}
 * with X-Repo-Commit and ETag on HEAD, large files (by default model.safetensors) redirected with 302
 * to a second server standing in for the CDN (X-Linked-Etag = SHA-256, X-Linked-Size), which honours
 * Range requests; 404 with X-Error-Code for missing files and repositories; a 307 relative redirect
 * for a renamed repository; 401 for a private repository without the right bearer token. It can drop
 * the connection part-way through a large file a given number of times.
 */
public final class HubImitation implements AutoCloseable {
    /** A repository at one commit: file name to content. */
    public record Repo(String commit, Map<String, byte[]> files, String token) {}

    final HttpServer hub;
    final HttpServer cdn;
    private final Map<String, Repo> repos = new ConcurrentHashMap<>();
    private final Map<String, String> renamed = new ConcurrentHashMap<>();
    private final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
    /** Every request as "METHOD path [Range] [auth]", hub and CDN alike. */
    public final List<String> requests = new CopyOnWriteArrayList<>();
    /** How many more large-file GETs to cut off half-way. */
    public final AtomicInteger drops = new AtomicInteger();

    public HubImitation() throws IOException {
        hub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        cdn = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        hub.createContext("/", this::hub);
        cdn.createContext("/", this::cdn);
        hub.start();
        cdn.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + hub.getAddress().getPort());
    }

    public void add(String name, Repo repo) {
        repos.put(name, repo);
    }

    public void rename(String oldName, String newName) {
        renamed.put(oldName, newName);
    }

    /** A repository holding the files of a model directory. */
    public static Repo repoOf(Path dir, String commit, String token) throws IOException {
        Map<String, byte[]> files = new ConcurrentHashMap<>();
        try (var list = Files.list(dir)) {
            for (Path p : list.toList()) {
                files.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        }
        return new Repo(commit, files, token);
    }

    private static boolean isLarge(String file) {
        return file.endsWith(".safetensors");
    }

    private void hub(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            log(x);
            int resolve = path.indexOf("/resolve/");
            if (resolve < 0) {
                send(x, 404, new byte[0]);
                return;
            }
            String name = path.substring(1, resolve);
            String[] rest = path.substring(resolve + "/resolve/".length()).split("/", 2);
            if (renamed.containsKey(name)) {
                x.getResponseHeaders().set("Location", "/" + renamed.get(name) + "/resolve/" + rest[0] + "/" + rest[1]);
                send(x, 307, new byte[0]);
                return;
            }
            Repo repo = repos.get(name);
            String auth = x.getRequestHeaders().getFirst("Authorization");
            if (repo == null || repo.token() != null && !("Bearer " + repo.token()).equals(auth)) {
                x.getResponseHeaders().set("X-Error-Code", "RepoNotFound");
                send(x, repo == null ? 404 : 401, new byte[0]);
                return;
            }
            if (!rest[0].equals("main") && !rest[0].equals(repo.commit())) {
                x.getResponseHeaders().set("X-Error-Code", "RevisionNotFound");
                send(x, 404, new byte[0]);
                return;
            }
            byte[] content = repo.files().get(rest[1]);
            if (content == null) {
                x.getResponseHeaders().set("X-Error-Code", "EntryNotFound");
                send(x, 404, new byte[0]);
                return;
            }
            x.getResponseHeaders().set("X-Repo-Commit", repo.commit());
            if (isLarge(rest[1])) {
                String sha = sha256(content);
                blobs.put(sha, content);
                x.getResponseHeaders().set("X-Linked-Etag", "\"" + sha + "\"");
                x.getResponseHeaders().set("X-Linked-Size", Long.toString(content.length));
                x.getResponseHeaders().set("Location", "http://127.0.0.1:" + cdn.getAddress().getPort() + "/blobs/" + sha
                        + "?signature=abc");
                send(x, 302, new byte[0]);
                return;
            }
            x.getResponseHeaders().set("ETag", "\"" + sha256(content).substring(0, 40) + "\"");
            send(x, 200, content);
        }
    }

    private void cdn(HttpExchange x) throws IOException {
        try (x) {
            log(x);
            String sha = x.getRequestURI().getPath().substring("/blobs/".length());
            byte[] content = blobs.get(sha);
            if (content == null) {
                send(x, 404, new byte[0]);
                return;
            }
            String range = x.getRequestHeaders().getFirst("Range");
            int from = range == null ? 0 : Integer.parseInt(range.substring("bytes=".length(), range.indexOf('-')));
            if (range != null) {
                x.getResponseHeaders().set("Content-Range", "bytes " + from + "-" + (content.length - 1) + "/" + content.length);
            }
            x.getResponseHeaders().set("ETag", "\"" + sha + "\"");
            int status = range == null ? 200 : 206;
            if (x.getRequestMethod().equals("HEAD")) {
                send(x, status, new byte[0]);
                return;
            }
            x.sendResponseHeaders(status, content.length - from);
            OutputStream out = x.getResponseBody();
            if (drops.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                int half = from + (content.length - from) / 2;
                out.write(content, from, half - from);
                out.flush();
                // Cut the connection without finishing the body, as a network failure would.
                throw new IOException("dropped on purpose");
            }
            out.write(content, from, content.length - from);
        }
    }

    private void log(HttpExchange x) {
        String range = x.getRequestHeaders().getFirst("Range");
        String auth = x.getRequestHeaders().getFirst("Authorization");
        requests.add(x.getRequestMethod() + " " + x.getRequestURI().getPath() + (range == null ? "" : " " + range)
                + (auth == null ? "" : " auth"));
    }

    private static void send(HttpExchange x, int status, byte[] body) throws IOException {
        if (x.getRequestMethod().equals("HEAD")) {
            if (status == 200) {
                x.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
            }
            x.sendResponseHeaders(status, -1);
            return;
        }
        x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        x.getResponseBody().write(body);
    }

    public static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        hub.stop(0);
        cdn.stop(0);
    }
}
