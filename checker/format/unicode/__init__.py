"""Unicode data the identity rules read (`checker.format.identity`): vendored, with its licence."""
