"""Shared helpers. The words `import reporter` here are documentation, not an import."""


def fmt(x):
    return f"<{x}>"
