# The analysis: tidy table, tables, plots and the PDF report, on Python 3.11 (Debian bookworm).
#   docker build -f experiments/docker/analysis.Dockerfile -t tmbench/analysis:local .
FROM python:3.11.7-slim-bookworm
WORKDIR /work
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY analysis/ analysis/
