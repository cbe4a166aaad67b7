package org.vectorbert.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * /openapi.json (a description of every route, kept beside this class; OpenApiTest holds it to the
 * OpenAPI parser, the route table and the server's real answers) and /docs, Swagger UI over it,
 * served from the swagger-ui webjar so the page needs no network.
 */
final class Docs {
    private static final String WEBJAR = "META-INF/resources/webjars/swagger-ui/";
    private static final byte[] OPEN_API = resource("org/vectorbert/server/openapi.json");
    private static final String VERSION = webjarVersion();

    private Docs() {}

    static byte[] openApi() {
        return OPEN_API;
    }

    static byte[] page() {
        return """
                <!doctype html>
                <html lang="en">
                <head>
                  <meta charset="utf-8">
                  <title>vectorbert serve: API</title>
                  <link rel="stylesheet" href="/docs/swagger-ui.css">
                </head>
                <body>
                  <div id="swagger-ui"></div>
                  <script src="/docs/swagger-ui-bundle.js"></script>
                  <script>
                    window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", tryItOutEnabled: true});
                  </script>
                </body>
                </html>
                """.getBytes(StandardCharsets.UTF_8);
    }

    /** One of Swagger UI's files, or null when there is no such file. */
    static byte[] asset(String name) {
        if (!name.matches("[A-Za-z0-9._-]+") || name.startsWith(".")) {
            return null;
        }
        try (InputStream in = Docs.class.getClassLoader().getResourceAsStream(WEBJAR + VERSION + "/" + name)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String contentType(String path) {
        return path.endsWith(".js") ? "text/javascript" : path.endsWith(".css") ? "text/css" : path.endsWith(".png") ? "image/png"
                : path.endsWith(".html") ? "text/html; charset=utf-8" : "application/octet-stream";
    }

    private static byte[] resource(String name) {
        try (InputStream in = Docs.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String webjarVersion() {
        Properties p = new Properties();
        try (InputStream in = Docs.class.getClassLoader().getResourceAsStream("META-INF/maven/org.webjars/swagger-ui/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("the swagger-ui webjar is not on the class path");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version");
    }
}
