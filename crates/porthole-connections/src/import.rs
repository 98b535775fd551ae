//! Other clients' MCP settings, read into the connections model.
