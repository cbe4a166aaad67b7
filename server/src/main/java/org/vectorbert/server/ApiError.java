package org.vectorbert.server;

/**
 * A request the server answers with an error: the HTTP status and TEI's error type
 * ({@code Validation}, {@code Tokenizer}, {@code Empty}, {@code Overloaded}, {@code Unhealthy},
 * {@code Backend}), shown to the client as {@code {"error": message, "error_type": type}}.
 */
final class ApiError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;
    final String type;

    ApiError(int status, String type, String message) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
    }

    static ApiError validation(String message) {
        return new ApiError(422, "Validation", message);
    }

    static ApiError empty(String message) {
        return new ApiError(400, "Empty", message);
    }
}
