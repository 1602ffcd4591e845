"""What every experiment's PDF section shares (`common`). The sections themselves live in the
experiments' folders (`experiments/<name>/section.py`), found through their descriptors.

A section is `section(doc, ctx)`: it adds its headings, tables and plots to the document (and
writes each table and plot beside the PDF) from the tidy table in `ctx`.
"""
