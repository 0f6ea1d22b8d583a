"""Content renderers: maths, diagrams fences, quizzes, interview pages, copy buttons.

Each turns a page's Markdown or HTML into what readers see; none imports MkDocs (the
adapter hands them what they need and turns their ContentError into a build error).
"""
